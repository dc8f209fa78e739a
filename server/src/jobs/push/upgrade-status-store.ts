// What the upgrade status (GET /api/environments/upgrades) needs of one user's environments, in one
// document per user (collection `upgradeStatus`, `_id` = the user id), so that the status is one
// `_id` read: on FerretDB, the embedded store, any other filter reads the whole table, and two reads
// per environment took 7-10 s for 10,000 environments.
//
// - `p.<environment id>`: the last push to the environment's own branch (one line, see PushLine),
//   set when a push is recorded (push-records.ts). One field per environment, so that concurrent
//   pushes of one user's environments (on any replica) never overwrite each other.
// - `envs`: what the status takes from each environment record (its version, input hash, pin and
//   the stored values the catalog refuses), one string, a line each: a cache, checked on every read
//   against the environment summaries' versions and rewritten where it disagrees (the reader's work).
// Missing (a database from before the store), the push lines are rebuilt from `environmentPushes`.
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
  p?: Record<string, string>
  /** Set once the push lines were built from `environmentPushes`. */
  pushesBuilt?: boolean
  envs?: string
  /** The catalog commit the `problems` of `envs` were found with. */
  catalogCommit?: string
}

// None of the fields holds a tab or a line break (ids, commits, hashes, a pin's pattern, JSON).
const encodePush = (p: PushLine) => [p.jobId, p.commit, p.branch, p.templatesCommit, p.pushedAt.getTime(), p.inputHash].join('\t')

function decodePush(line: string): PushLine {
  const [jobId, commit, branch, templatesCommit, pushedAt, inputHash] = line.split('\t')
  return { jobId, commit, branch, templatesCommit, pushedAt: new Date(Number(pushedAt)), inputHash }
}

export const encodeEnvs = (envs: EnvLine[]) =>
  envs.map((e) => [e.id, e.version, e.updatedAt, e.inputHash, e.pin, JSON.stringify(e.problems)].join('\t')).join('\n')

function decodeEnvs(text: string | undefined): Map<string, EnvLine> {
  const out = new Map<string, EnvLine>()
  if (!text) return out
  for (const line of text.split('\n')) {
    const [id, version, updatedAt, inputHash, pin, problems] = line.split('\t')
    out.set(id, { id, version: Number(version), updatedAt: Number(updatedAt), inputHash, pin, problems: JSON.parse(problems) })
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

  constructor(
    db: Db,
    /** The last pushes' records (`environmentPushes`), read to rebuild a missing document. */
    private readonly pushRecords: Collection<PushLine & { _id: string; userId: string }>,
  ) {
    this.collection = db.collection<StatusDoc>('upgradeStatus')
  }

  /** Records the last push to an environment's own branch. */
  async pushed(userId: string, environmentId: string, push: PushLine): Promise<void> {
    await this.collection.updateOne({ _id: userId }, { $set: { [`p.${environmentId}`]: encodePush(push) } }, { upsert: true })
  }

  async removed(userId: string, environmentId: string): Promise<void> {
    await this.collection.updateOne({ _id: userId }, { $unset: { [`p.${environmentId}`]: '' } })
  }

  /** The user's stored status; its push lines rebuilt first when they were never built. */
  async read(userId: string): Promise<StoredStatus> {
    let doc = await this.collection.findOne({ _id: userId })
    if (!doc?.pushesBuilt) {
      await this.rebuildPushes(userId)
      doc = await this.collection.findOne({ _id: userId })
    }
    const pushes = new Map<string, PushLine>()
    for (const [id, line] of Object.entries(doc?.p ?? {})) pushes.set(id, decodePush(line))
    return { pushes, envs: decodeEnvs(doc?.envs), catalogCommit: doc?.catalogCommit }
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
   * The push lines from the last-push records of the user's environments (one query; the records
   * of an environment's own branch have its id alone as `_id`). A push recorded meanwhile is set
   * again after, so the rebuild does not hide it.
   */
  private async rebuildPushes(userId: string): Promise<void> {
    const started = new Date()
    const records = await this.pushRecords.find({ userId }).toArray()
    const own = records.filter((r) => !r._id.includes(':'))
    const fields = Object.fromEntries(own.map((r) => [`p.${r._id}`, encodePush(r)]))
    await this.collection.updateOne({ _id: userId }, { $set: { ...fields, pushesBuilt: true } }, { upsert: true })
    const later = await this.pushRecords.find({ userId, pushedAt: { $gte: started } }).toArray()
    for (const r of later.filter((x) => !x._id.includes(':'))) await this.pushed(userId, r._id, r)
  }
}
