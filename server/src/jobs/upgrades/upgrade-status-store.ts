// What the upgrade status (GET /api/environments/upgrades) needs of one user's environments, in one
// document per user (collection `upgradeStatus`, `_id` = the user id), so that the status is one
// `_id` read: on FerretDB, the embedded store, any other filter reads the whole table, and two reads
// per environment took 7-10 s for 10,000 environments.
//
// - `pushes`: the last push to each environment's own branch, one string, a line each (PushLine),
//   up to the recorded push number `seq`. FerretDB decodes a document field by field (10,000 lines
//   as fields took 0.2-0.8 s to read, as one string a few tens of milliseconds), and it updates a
//   document by reading and rewriting it, so two writers of one document lose one's change.
// - A recorded push is therefore a document of its own in `upgradeStatusPushes`, `_id`
//   `<user>:<n>` with the next free number n (an insert: a unique `_id` is atomic on every store, so
//   two pushes never take the same number and numbers have no gaps). A read reads `<user>:<seq + 1>`,
//   `<seq + 2>`, ... until one is missing, and folds them into `pushes` (the newest push of an
//   environment wins). Folding is idempotent: two replicas folding at once write the same lines or
//   an older `seq`, whose pushes the next read reads again; pushes numbered well below the folded
//   `seq` are removed. `upgradeStatusSeq` (by user) is where a writer starts looking for a number.
// - `envs`: what the status takes from each environment record (its version, input hash, pin and
//   the stored values the catalog refuses), a line each: a cache, checked on every read against the
//   environment summaries' versions and rewritten where it disagrees (the reader's work).
// Missing (a database from before the store), the push lines are built from `environmentPushes`:
// by the user's next push (`pushed`), or in the background by the next status read.
import { LRUCache } from 'lru-cache'
import type { Collection, Db } from 'mongodb'

/** The last push of an environment as the status needs it. */
export interface PushLine {
  jobId: string
  commit: string
  branch: string
  templatesCommit: string
  pushedAt: Date
  inputHash: string
}

/** What the status takes from an environment record. */
export interface EnvLine {
  id: string
  version: number
  updatedAt: number
  inputHash: string
  pin: string
  problems: { field: string; reason: string }[]
}

interface StatusDoc {
  _id: string
  pushes?: string
  /** The number of the last recorded push folded into `pushes`. */
  seq?: number
  envs?: string
  /** The catalog commit the `problems` of `envs` were found with. */
  catalogCommit?: string
}

/** A push that finds this many recorded since the last fold folds them (see `pushed`). */
const FOLD_EVERY = 64
/** Recorded pushes kept below the folded number (a fold that lands late still finds them). */
const KEPT_BELOW_FOLD = 64

// None of the fields holds a tab or a line break (ids, commits, hashes, a pin's pattern, JSON).
const encodePush = (p: PushLine) => [p.jobId, p.commit, p.branch, p.templatesCommit, p.pushedAt.getTime(), p.inputHash].join('\t')

function decodePush(line: string): PushLine {
  const [jobId, commit, branch, templatesCommit, pushedAt, inputHash] = line.split('\t')
  return { jobId, commit, branch, templatesCommit, pushedAt: new Date(Number(pushedAt)), inputHash }
}

/** A line of `pushes`: the environment id, then its PushLine. */
function pushEntry(line: string): [string, PushLine] {
  const tab = line.indexOf('\t')
  return [line.slice(0, tab), decodePush(line.slice(tab + 1))]
}

const decodePushes = (text: string) => new Map(text ? text.split('\n').map(pushEntry) : [])

export const encodeEnvs = (envs: EnvLine[]) =>
  envs.map((e) => [e.id, e.version, e.updatedAt, e.inputHash, e.pin, JSON.stringify(e.problems)].join('\t')).join('\n')

/**
 * Decoded strings of recently read documents, by their text: a user who reads the status again
 * reads the same text, and comparing it with the cached one costs less than decoding 10,000 lines.
 */
const decodedTexts = new LRUCache<string, Map<string, unknown>>({
  max: 64,
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (_decoded, text) => text.length * 3 + 1,
})

function cached<T>(text: string, decode: (text: string) => Map<string, T>): Map<string, T> {
  let known = decodedTexts.get(text) as Map<string, T> | undefined
  if (!known) decodedTexts.set(text, (known = decode(text)))
  return known
}

function decodeEnvs(text: string | undefined): Map<string, EnvLine> {
  const out = new Map<string, EnvLine>()
  if (!text) return out
  for (const line of text.split('\n')) {
    const [id, version, updatedAt, inputHash, pin, problems] = line.split('\t')
    const parsed = problems === '[]' ? [] : (JSON.parse(problems) as EnvLine['problems'])
    out.set(id, { id, version: Number(version), updatedAt: Number(updatedAt), inputHash, pin, problems: parsed })
  }
  return out
}

export interface StoredStatus {
  pushes: Map<string, PushLine>
  envs: Map<string, EnvLine>
  catalogCommit: string | undefined
}

export class UpgradeStatusStore {
  private readonly collection: Collection<StatusDoc>
  private readonly recorded: Collection<{ _id: string; line: string }>
  private readonly hints: Collection<{ _id: string; seq: number }>

  constructor(
    db: Db,
    /** The last pushes' records (`environmentPushes`), read to build a missing document. */
    private readonly pushRecords: Collection<PushLine & { _id: string; userId: string }>,
  ) {
    this.collection = db.collection<StatusDoc>('upgradeStatus')
    this.recorded = db.collection('upgradeStatusPushes')
    this.hints = db.collection('upgradeStatusSeq')
  }

  /**
   * Records the last push to an environment's own branch, under the user's next free push number.
   * The writer keeps the document current, so that no read builds it or walks many recorded pushes:
   * the user's first push since the store builds the document (from the last-push records), and a
   * push that finds FOLD_EVERY or more recorded since the last fold folds them.
   */
  async pushed(userId: string, environmentId: string, push: PushLine): Promise<void> {
    const line = `${environmentId}\t${encodePush(push)}`
    const hint = await this.hints.findOne({ _id: userId })
    for (let n = (hint?.seq ?? 0) + 1; ; n++) {
      try {
        await this.recorded.insertOne({ _id: `${userId}:${n}`, line })
        // A fold that fails is the next read's to do.
        if (!hint || n - hint.seq >= FOLD_EVERY) await this.read(userId).catch(() => {})
        return
      } catch (err) {
        if ((err as { code?: unknown }).code !== 11000) throw err
      }
    }
  }

  /**
   * The user's stored status, its push lines built first when there is no document (or null then,
   * with `build` false). `liveIds`: the user's environments (read meanwhile); the lines of others are
   * dropped, and the pushes folded.
   */
  async read(userId: string, liveIds?: Promise<ReadonlySet<string>>, build = true): Promise<StoredStatus | null> {
    const found = await this.collection.findOne({ _id: userId })
    if (!found && !build) return null
    // Built: the fold writes the hint too, so the next push finds one.
    const built = found === null
    const doc = found ?? (await this.build(userId))
    const pushes = new Map<string, PushLine>()
    const put = (line: string) => {
      const [id, push] = pushEntry(line)
      const known = pushes.get(id)
      if (!known || known.pushedAt <= push.pushedAt) pushes.set(id, push)
    }
    // A copy: the pushes recorded since the fold are put on top.
    for (const [id, push] of cached(doc.pushes ?? '', decodePushes)) pushes.set(id, push)
    let seq = doc.seq ?? 0
    for (let next = await this.recorded.findOne({ _id: `${userId}:${seq + 1}` }); next;) {
      put(next.line)
      seq++
      next = await this.recorded.findOne({ _id: `${userId}:${seq + 1}` })
    }
    const live = await liveIds
    const dead = live ? [...pushes.keys()].filter((id) => !live.has(id)) : []
    for (const id of dead) pushes.delete(id)
    if (seq > (doc.seq ?? 0) || dead.length > 0 || built) await this.fold(userId, pushes, doc.seq ?? 0, seq)
    return { pushes, envs: cached(doc.envs ?? '', decodeEnvs), catalogCommit: doc.catalogCommit }
  }

  /** Writes the pushes as folded up to `seq`, and lets the recorded pushes well below it go. */
  private async fold(userId: string, pushes: Map<string, PushLine>, from: number, seq: number): Promise<void> {
    const text = [...pushes].map(([id, p]) => `${id}\t${encodePush(p)}`).join('\n')
    await this.collection.updateOne({ _id: userId }, { $set: { pushes: text, seq } }, { upsert: true })
    await this.hints.replaceOne({ _id: userId }, { seq }, { upsert: true })
    for (let n = Math.max(1, from - KEPT_BELOW_FOLD); n <= seq - KEPT_BELOW_FOLD; n++)
      await this.recorded.deleteOne({ _id: `${userId}:${n}` })
  }

  /** Stores the environment lines (a cache: a lost write is found out and redone by the next read). */
  async storeEnvs(userId: string, envs: EnvLine[], catalogCommit: string | undefined): Promise<void> {
    await this.collection.updateOne(
      { _id: userId },
      { $set: { envs: encodeEnvs(envs), ...(catalogCommit !== undefined && { catalogCommit }) } },
      { upsert: true },
    )
  }

  /**
   * The user's document from the last-push records of their environments (one query; the record of
   * an environment's own branch has its id alone as `_id`), folded up to the push number a writer
   * would start from: pushes recorded since are read on top (the newest push of an environment wins).
   */
  private async build(userId: string): Promise<StatusDoc> {
    const seq = (await this.hints.findOne({ _id: userId }))?.seq ?? 0
    const records = await this.pushRecords.find({ userId }).toArray()
    const pushes = records
      .filter((r) => !r._id.includes(':'))
      .map((r) => `${r._id}\t${encodePush(r)}`)
      .join('\n')
    await this.collection.updateOne({ _id: userId }, { $set: { pushes, seq } }, { upsert: true })
    return { _id: userId, pushes, seq }
  }
}
