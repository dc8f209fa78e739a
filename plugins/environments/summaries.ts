// The per-user summary of environments (collection `environment_summaries`, one document per user,
// `_id` = the user id): what a list needs to filter, sort, count and page (id, name, provider,
// status, createdAt, version), so that `GET /api/environments` reads one document by `_id` and then
// the page's records by `_id`, and never another user's data or a count of the collection. On
// FerretDB 1.x, the embedded store, only an exact `{ _id }` read avoids reading the whole table.
//
// Maintained by the repository after each write of an environment (create, replace, remove), under
// the owner's lock in this process and, across replicas, by claiming each revision of the summary
// with an insert before writing it (`changeNow`; a loser re-reads and re-applies its change). An
// entry is only replaced by one of a newer environment version, so re-applying converges. It is rebuilt
// from the environments collection (the one scan, per user) when it is missing, when a list finds an
// entry that disagrees with its record (a write whose summary update was lost: a crash or an outage
// between the two writes), or when a summary update failed in this process.
import { setTimeout as sleep } from 'node:timers/promises'
import { LRUCache } from 'lru-cache'
import type { Collection, Db } from 'mongodb'
import type { EnvironmentRecord } from './repository.ts'
import type { StoredEnvironment } from './stored-form.ts'
import { SORTS } from './schemas.ts'

export interface SummaryEntry {
  id: string
  name: string
  provider: EnvironmentRecord['provider']
  region: string
  status: EnvironmentRecord['status']
  createdAt: Date
  updatedAt: Date
  /** The record's version this entry was taken from (0: a record from before versions). */
  version: number
}

export interface SummaryDocument {
  _id: string
  entries: SummaryEntry[]
  /** +1 on every write of the summary (each revision claimed first, see `changeNow`). */
  revision: number
}

/**
 * As stored: the entries as one string, a line each (`id`, `name`, `provider`, `status`, `createdAt`
 * in ms, `version`, `region`, `updatedAt` in ms, tab-separated; none of them can hold a tab or a line break). FerretDB decodes
 * a document field by field: 10,000 entries as objects took half a second to read, as one string
 * a few milliseconds.
 */
interface StoredSummary {
  _id: string
  entries: string
  revision: number
}

export function encodeEntries(entries: SummaryEntry[]): string {
  return entries
    .map((e) => [e.id, e.name, e.provider, e.status, e.createdAt.getTime(), e.version, e.region, e.updatedAt.getTime()].join('\t'))
    .join('\n')
}

export function decodeEntries(text: string): SummaryEntry[] {
  if (!text) return []
  return text.split('\n').map((line) => {
    const [id, name, provider, status, created, version, region, updated] = line.split('\t')
    // A line from before `region` and `updatedAt` were kept has no `updated`: see `complete`.
    const updatedAt = new Date(updated === undefined ? NaN : Number(updated))
    const stored = { provider: provider as SummaryEntry['provider'], status: status as SummaryEntry['status'] }
    return { id, name, ...stored, region: region ?? '', createdAt: new Date(Number(created)), updatedAt, version: Number(version) }
  })
}

/** False for a summary stored before entries carried everything a list row shows: it is rebuilt. */
const complete = (entries: SummaryEntry[]): boolean => entries.every((e) => !Number.isNaN(e.updatedAt.getTime()))

/**
 * The entries of recently read summaries by their stored text, and (by entries) the selections made
 * from them: a user paging through a large list reads the same text again, and decoding 10,000 lines
 * costs 15-50 ms, sorting them 5-15 ms. Comparing the text read with the one cached is a memory
 * compare. The arrays are shared: nothing changes them in place (`put` and `remove` copy).
 */
const decodedTexts = new LRUCache<string, SummaryEntry[]>({
  max: 256,
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (_entries, text) => text.length * 3 + 1,
})
const selectionsOf = new WeakMap<SummaryEntry[], Map<string, SummaryEntry[]>>()

function decodedEntries(text: string): SummaryEntry[] {
  const known = decodedTexts.get(text)
  if (known) return known
  const entries = decodeEntries(text)
  if (text.length > SMALL_SUMMARY) {
    decodedTexts.set(text, entries)
    selectionsOf.set(entries, new Map())
  }
  return entries
}

/** Below this many characters (about a hundred entries) decoding and sorting cost less than keeping them. */
const SMALL_SUMMARY = 10_000

const decoded = (doc: StoredSummary): SummaryDocument => ({ _id: doc._id, entries: decodedEntries(doc.entries), revision: doc.revision })

export interface SummaryQuery {
  provider?: string
  status?: string
  sort?: keyof typeof SORTS
  order?: 'asc' | 'desc'
}

/** The fields of a record its summary entry describes (SUMMARY_FIELDS), whichever form it was read in. */
type Summarized = Pick<
  EnvironmentRecord,
  '_id' | 'userId' | 'name' | 'provider' | 'region' | 'status' | 'createdAt' | 'updatedAt' | 'version'
>

export function entryOf(doc: Summarized): SummaryEntry {
  return {
    id: doc._id,
    name: doc.name,
    provider: doc.provider,
    region: doc.region,
    status: doc.status,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    version: doc.version ?? 0,
  }
}

/** True when the entry describes the record as stored. */
export function entryMatches(entry: SummaryEntry, doc: Summarized | null, userId: string): boolean {
  if (!doc || doc.userId !== userId) return false
  return (
    (doc.version ?? 0) === entry.version &&
    doc.name === entry.name &&
    doc.provider === entry.provider &&
    doc.region === entry.region &&
    doc.status === entry.status &&
    doc.updatedAt.getTime() === entry.updatedAt.getTime()
  )
}

/** The entries a list query selects, in its order (the order the database query used: field, then id). */
export function select(entries: SummaryEntry[], query: SummaryQuery): SummaryEntry[] {
  const selections = selectionsOf.get(entries)
  const key = `${query.provider ?? ''}\t${query.status ?? ''}\t${query.sort ?? ''}\t${query.order ?? ''}`
  const known = selections?.get(key)
  if (known) return known
  const selected = selectNow(entries, query)
  if (selections && selections.size < 16) selections.set(key, selected)
  return selected
}

/** The list order of a query: its field, then id. */
function orderOf(query: SummaryQuery): (a: SummaryEntry, b: SummaryEntry) => number {
  const sort = query.sort ?? 'created_at'
  // Newest first by default; names A to Z by default.
  const direction = (query.order ?? (sort === 'name' ? 'asc' : 'desc')) === 'asc' ? 1 : -1
  const key = (e: SummaryEntry): string | number => (sort === 'name' ? e.name : e.createdAt.getTime())
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)
  return (a, b) => direction * (compare(key(a), key(b)) || compare(a.id, b.id))
}

function selectNow(entries: SummaryEntry[], query: SummaryQuery): SummaryEntry[] {
  return entries
    .filter((e) => (!query.provider || e.provider === query.provider) && (!query.status || e.status === query.status))
    .sort(orderOf(query))
}

/**
 * Several selections (the caller's own summary's and their teams', each in the query's order) as
 * one list in that order, and which selection each entry came from. One non-empty selection is
 * passed on as it is (its cached array): a team member's list costs what an owner's does.
 */
export function mergeSelections(
  selections: SummaryEntry[][],
  query: SummaryQuery,
): { entries: SummaryEntry[]; sourceOf: (entry: SummaryEntry) => number } {
  const nonEmpty = selections.map((s, i) => [s, i] as const).filter(([s]) => s.length > 0)
  if (nonEmpty.length <= 1) {
    const only = nonEmpty[0]?.[1] ?? 0
    return { entries: nonEmpty[0]?.[0] ?? [], sourceOf: () => only }
  }
  const source = new Map<SummaryEntry, number>()
  for (const [entries, i] of nonEmpty) for (const e of entries) source.set(e, i)
  return { entries: [...source.keys()].sort(orderOf(query)), sourceOf: (entry) => source.get(entry)! }
}

/** The `_id` of the marker set once every user's summary has been built (see `allBuilt`). */
const ALL_BUILT = '#all'
const SUMMARY_FIELDS = { _id: 1, userId: 1, name: 1, provider: 1, region: 1, status: 1, createdAt: 1, updatedAt: 1, version: 1 } as const

const empty = (userId: string): SummaryDocument => ({ _id: userId, entries: [], revision: 0 })

function ignoreDuplicate(err: unknown): void {
  if ((err as { code?: unknown }).code !== 11000) throw err
}

/** How long a summary update waits, in all, for another writer's claimed revision to appear. */
const CLAIM_WAIT_MS = 2000
/** Claims of the last this many revisions per user are kept (see `write`). */
const KEPT_CLAIMS = 16

export class EnvironmentSummaries {
  readonly collection: Collection<StoredSummary>
  /** `<user>:<revision>`: inserted before that revision of the summary is written (see `write`). */
  readonly claims: Collection<{ _id: string; at: Date }>
  /** Users whose summary update failed in this process: their next list rebuilds it. */
  private readonly stale = new Set<string>()

  constructor(
    db: Db,
    private readonly environments: Collection<StoredEnvironment>,
    /** The owner's lock (repository.ts): one summary write per user at a time in this process. */
    private readonly lock: <T>(userId: string, fn: () => Promise<T>) => Promise<T>,
  ) {
    this.collection = db.collection<StoredSummary>('environment_summaries')
    this.claims = db.collection('environment_summary_claims')
  }

  /** The user's summary, rebuilt when missing, marked stale here, or stored in an older form. */
  async read(userId: string): Promise<SummaryDocument> {
    if (this.stale.has(userId)) return this.rebuild(userId)
    const doc = await this.collection.findOne({ _id: userId })
    if (doc) {
      const summary = decoded(doc)
      return complete(summary.entries) ? summary : this.rebuild(userId)
    }
    // Every user's summary was built: no summary is no environment (no scan for a new user).
    if (await this.allBuilt()) return (await this.collection.findOne({ _id: userId }).then((d) => d && decoded(d))) ?? empty(userId)
    return this.rebuild(userId)
  }

  /**
   * True once every user's summary exists. The first time a summary is missing on a database
   * without the `#all` marker (a database from before summaries, or a new one), one scan of the
   * environments builds every user's summary that is missing and sets the marker; after that a
   * missing summary means a user without environments, which costs no scan.
   */
  private async allBuilt(): Promise<boolean> {
    if (await this.collection.findOne({ _id: ALL_BUILT })) return true
    const records = await this.environments.find({}, { projection: SUMMARY_FIELDS }).toArray()
    const byUser = new Map<string, SummaryEntry[]>()
    for (const r of records) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), entryOf(r)])
    for (const [userId, entries] of byUser) {
      // An insert: a summary a write made meanwhile wins.
      const revision = 1_000_000 // above any revision claimed before the summary went missing
      await this.collection.insertOne({ _id: userId, entries: encodeEntries(entries), revision }).catch(ignoreDuplicate)
    }
    await this.collection.insertOne({ _id: ALL_BUILT, entries: '', revision: 0 }).catch(ignoreDuplicate)
    return true
  }

  /** Reads every environment of the user (the one scan) and stores the summary anew. */
  rebuild(userId: string): Promise<SummaryDocument> {
    return this.lock(userId, () => this.guarded(userId, () => this.changeNow(userId, () => 'rebuild')))
  }

  /**
   * Puts the record's entry in (unless the summary has a newer version of it). The caller holds the
   * owner's lock (the repository's create and replace write the record and its entry under it).
   */
  put(doc: Summarized): Promise<void> {
    const entry = entryOf(doc)
    return this.changeHeld(doc.userId, (entries) => {
      const at = entries.findIndex((e) => e.id === entry.id)
      if (at < 0) return [...entries, entry]
      if (entries[at].version > entry.version) return null
      const next = [...entries]
      next[at] = entry
      return next
    })
  }

  /** `put` for a caller that does not hold the owner's lock (a move puts the entry under its new owner). */
  putLocking(doc: Summarized): Promise<void> {
    return this.lock(doc.userId, () => this.put(doc))
  }

  /** Takes the environment's entry out. */
  remove(userId: string, id: string): Promise<void> {
    return this.lock(userId, () => this.removeHeld(userId, id))
  }

  /** `remove` for a caller that holds the owner's lock. */
  removeHeld(userId: string, id: string): Promise<void> {
    return this.changeHeld(userId, (entries) => (entries.some((e) => e.id === id) ? entries.filter((e) => e.id !== id) : null))
  }

  /** `change` for a caller that holds the owner's lock already (the lock is not re-entrant). */
  private async changeHeld(userId: string, change: (entries: SummaryEntry[]) => SummaryEntry[] | null): Promise<void> {
    await this.guarded(userId, () => this.changeNow(userId, change))
  }

  /** When the summary cannot be written (the database failed), the user's next list here rebuilds it. */
  private async guarded<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      this.stale.add(userId)
      throw err
    }
  }

  /**
   * Applies `change` (null: nothing to do; 'rebuild': read the records) to the stored summary as its
   * next revision. Across replicas the revision is claimed first by inserting `<user>:<revision>`
   * into `environment_summary_claims` (a unique `_id`, atomic on every store, where FerretDB's
   * conditional updates are not): the one writer that claimed it writes it; the others re-read and
   * re-apply their change on top. A revision claimed but never written (its writer died) is given
   * up on after CLAIM_WAIT_MS: the next revision is a rebuild from the records.
   */
  private async changeNow(
    userId: string,
    change: (entries: SummaryEntry[]) => SummaryEntry[] | null | 'rebuild',
  ): Promise<SummaryDocument> {
    const deadline = Date.now() + CLAIM_WAIT_MS
    let skip = 0 // revisions claimed but not written, past the deadline
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const stored = await this.collection.findOne({ _id: userId })
      const current = stored
        ? decoded(stored)
        : (await this.allBuilt()) && (await this.collection.findOne({ _id: userId })) === null
          ? empty(userId)
          : null
      const abandoned = Date.now() > deadline
      const wanted = current && !abandoned && complete(current.entries) ? change(current.entries) : 'rebuild'
      if (current && wanted === null) return current
      if (abandoned) skip++
      const revision = (current?.revision ?? 0) + 1 + skip
      if (await this.claim(userId, revision)) {
        const entries = wanted === 'rebuild' || wanted === null ? await this.recordsOf(userId) : wanted
        const doc: SummaryDocument = { _id: userId, entries, revision }
        await this.collection.replaceOne({ _id: userId }, { entries: encodeEntries(entries), revision }, { upsert: true })
        if (revision > KEPT_CLAIMS) await this.claims.deleteOne({ _id: `${userId}:${revision - KEPT_CLAIMS}` })
        return doc
      }
      await sleep(pause * (0.5 + Math.random()))
    }
  }

  /**
   * True when this writer claimed the revision. Claims of the last KEPT_CLAIMS revisions stay, so a
   * writer that read a summary a few revisions old cannot claim a revision that has been written.
   */
  private async claim(userId: string, revision: number): Promise<boolean> {
    try {
      await this.claims.insertOne({ _id: `${userId}:${revision}`, at: new Date() })
      return true
    } catch (err) {
      if ((err as { code?: unknown }).code === 11000) return false
      throw err
    }
  }

  private async recordsOf(userId: string): Promise<SummaryEntry[]> {
    const records = await this.environments.find({ userId }, { projection: SUMMARY_FIELDS }).toArray()
    return records.map(entryOf)
  }
}
