// The per-user summary of environments (collection `environment_summaries`, one document per user,
// `_id` = the user id): what a list needs to filter, sort, count and page (id, name, provider,
// status, createdAt, version), so that `GET /api/environments` reads one document by `_id` and then
// the page's records by `_id`, and never another user's data or a count of the collection. On
// FerretDB 1.x, the embedded store, only an exact `{ _id }` read avoids reading the whole table.
//
// A summary of FOLD_AT entries or more (marked `delta: true`) has a delta document beside it,
// `<user>:delta` (summary-delta.ts): the changes made since the summary was last written whole, and
// the summary revision they apply to (`base`). A write rewrites only the delta, so it costs the same
// at 10,000 entries as at 10; the write that takes the delta past FOLD_AT changes folds it into the
// summary (one whole rewrite every FOLD_AT writes), writing the empty delta naming the new revision
// first. A list reads both by `_id` side by side and applies the delta (a delta whose `base` is older
// than the summary, left by an older version, was folded into it already); a process that read a
// large summary keeps it, and reads only the delta while it names the revision kept (see `read`).
//
// Maintained by the repository after each write of an environment (create, replace, remove), under
// the owner's lock in this process and, across replicas, by claiming each revision (of the summary or
// its delta, whichever holds the newer) with an insert before writing it (`changeNow`; a loser
// re-reads and re-applies its change). An entry is only replaced by one of a newer environment
// version, so re-applying converges. It is rebuilt from the environments collection (the one scan,
// per user) when it is missing, when its delta is missing or names a summary revision never written
// (a write lost between the two documents), when a list finds an entry that disagrees with its
// record (a write whose summary update was lost: a crash or an outage between the two writes), or
// when a summary update failed in this process.
import { setTimeout as sleep } from 'node:timers/promises'
import { LRUCache } from 'lru-cache'
import type { Collection, Db } from 'mongodb'
import type { EnvironmentRecord } from './record.ts'
import type { StoredEnvironment } from './stored-form.ts'
import { parseLabelSelector, SORTS } from '@ies/api/schemas/environments'
import { applyChanges, decodeChanges, editEntries, encodeChanges, recordEdit, type Changes, type Edit } from './summary-delta.ts'
import { decodeEntries, encodeEntries, encodeLabels, type SummaryEntry } from './summary-entries.ts'

export interface SummaryDocument {
  _id: string
  entries: SummaryEntry[]
  /** +1 on every write of the summary (each revision claimed first, see `changeNow`). */
  revision: number
}

/**
 * As stored: the entries as one string, a line each (`id`, `name`, `provider`, `status`, `createdAt`
 * in ms, `version`, `region`, `updatedAt` in ms, `labels` as `k=v,k=v`, tab-separated; none of them can hold a tab or a line break). FerretDB decodes
 * a document field by field, so entries as objects cost a read in proportion to their fields, as one
 * string about one field's worth.
 */
interface StoredSummary {
  _id: string
  entries: string
  revision: number
  /** The summary's changes go to its delta document (the summary has FOLD_AT entries or more). */
  delta?: boolean
  /** In a delta document: the summary revision its changes apply to. */
  base?: number
}

/** A delta of more changes than this is folded into its summary; a summary of this many entries has a delta. */
export const FOLD_AT = 256
const deltaKey = (userId: string) => `${userId}:delta`

/** False for a summary stored before entries carried everything a list row shows: it is rebuilt. */
const complete = (entries: SummaryEntry[]): boolean => entries.every((e) => !Number.isNaN(e.updatedAt.getTime()))

/**
 * The entries of recently read summaries by their stored text, and (by entries) the selections made
 * from them: a user paging through a large list reads the same text again, and decoding and sorting
 * 10,000 lines is what a page would otherwise cost. Comparing the text read with the one cached is a memory
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

/** Per kept summary (by its entries): its entries with the last delta read applied, by the delta's text. */
const mergedOf = new WeakMap<SummaryEntry[], { delta: string; entries: SummaryEntry[] }>()

/** The summary's entries with the delta's changes applied (kept beside the summary's). */
function mergedEntries(entries: SummaryEntry[], delta: string): SummaryEntry[] {
  if (!delta) return entries
  const known = mergedOf.get(entries)
  if (known?.delta === delta) return known.entries
  const merged = applyChanges(entries, decodeChanges(delta))
  if (selectionsOf.has(entries)) {
    mergedOf.set(entries, { delta, entries: merged })
    selectionsOf.set(merged, new Map())
  }
  return merged
}

/**
 * How a summary and its delta, as read, stand. `changes`: the delta's text to apply ('' when the
 * summary has no delta, or the delta was folded into it already); `revision`: the newest revision
 * written. 'missing': neither exists. 'lost': the summary has a delta and the delta is gone.
 * 'unsettled': the delta names a summary revision not (yet) written: a writer that starts a delta
 * writes it before the summary; the summary follows, or the writer died and it is rebuilt.
 */
type Layout = { changes: string; revision: number; hasDelta: boolean } | 'missing' | 'lost' | 'unsettled'

function layoutOf(head: Omit<StoredSummary, 'entries'> | null, delta: StoredSummary | null): Layout {
  if (!head) return delta ? 'unsettled' : 'missing'
  if (delta && (delta.base ?? 0) > head.revision) return 'unsettled'
  if (head.delta && !delta) return 'lost'
  const applies = head.delta && delta?.base === head.revision
  return { changes: applies ? delta.entries : '', revision: Math.max(head.revision, delta?.revision ?? 0), hasDelta: !!delta }
}

/** What a writer writes once it claimed the revision (see `changeNow`). */
type Plan =
  | { write: 'summary'; entries: SummaryEntry[] | 'records'; hasDelta: boolean }
  | { write: 'delta'; changes: Changes; base: number }
  | { write: 'fold'; changes: Changes; base: number }

export interface SummaryQuery {
  provider?: string
  status?: string
  /** A label selector (`key=value` or `key`, comma-separated; all must match). */
  label?: string
  sort?: keyof typeof SORTS
  order?: 'asc' | 'desc'
}

/** The fields of a record its summary entry describes (SUMMARY_FIELDS), whichever form it was read in. */
type Summarized = Pick<
  EnvironmentRecord,
  '_id' | 'userId' | 'name' | 'provider' | 'region' | 'status' | 'createdAt' | 'updatedAt' | 'version' | 'labels'
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
    labels: doc.labels ?? {},
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
    doc.updatedAt.getTime() === entry.updatedAt.getTime() &&
    encodeLabels(doc.labels ?? {}) === encodeLabels(entry.labels)
  )
}

/** The entries a list query selects, in its order (the order the database query used: field, then id). */
export function select(entries: SummaryEntry[], query: SummaryQuery): SummaryEntry[] {
  const selections = selectionsOf.get(entries)
  const key = `${query.provider ?? ''}\t${query.status ?? ''}\t${query.sort ?? ''}\t${query.order ?? ''}\t${query.label ?? ''}`
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
  const labels = query.label ? parseLabelSelector(query.label) : []
  const labelled = (e: SummaryEntry) =>
    labels.every(({ key, value }) => (value === undefined ? key in e.labels : (e.labels as Record<string, string>)[key] === value))
  return entries
    .filter((e) => (!query.provider || e.provider === query.provider) && (!query.status || e.status === query.status) && labelled(e))
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
const SUMMARY_FIELDS = {
  _id: 1,
  userId: 1,
  name: 1,
  provider: 1,
  region: 1,
  status: 1,
  createdAt: 1,
  updatedAt: 1,
  version: 1,
  labels: 1,
} as const

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
  /** By user: the large summary (one that has a delta) last read here, its revision and entries (see `read`). */
  private readonly kept = new LRUCache<string, { revision: number; entries: SummaryEntry[] }>({
    max: 256,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (summary) => summary.entries.length * 300 + 1,
  })

  constructor(
    db: Db,
    private readonly environments: Collection<StoredEnvironment>,
    /** The owner's lock (repository.ts): one summary write per user at a time in this process. */
    private readonly lock: <T>(userId: string, fn: () => Promise<T>) => Promise<T>,
    /** A delta of more changes is folded into its summary (FOLD_AT; tests fold sooner). */
    private readonly foldAt = FOLD_AT,
  ) {
    this.collection = db.collection<StoredSummary>('environment_summaries')
    this.claims = db.collection('environment_summary_claims')
  }

  /**
   * The user's summary with its delta applied; rebuilt when missing, lost, marked stale here, or
   * stored in an older form. A large summary read here before is not read again while it stands:
   * only its delta is read, and when the delta still applies to the revision kept here (every write
   * of a summary that has a delta writes the delta's new `base` first, see `write`), the kept entries
   * are used (a 5,000-entry summary costs FerretDB milliseconds to read whole on every list).
   */
  async read(userId: string): Promise<SummaryDocument> {
    if (this.stale.has(userId)) return this.rebuild(userId)
    const kept = this.kept.get(userId)
    if (kept) {
      const delta = await this.collection.findOne({ _id: deltaKey(userId) })
      if (delta?.base === kept.revision) {
        const entries = mergedEntries(kept.entries, delta.entries)
        if (complete(entries)) return { _id: userId, entries, revision: Math.max(kept.revision, delta.revision) }
      }
    }
    const deadline = Date.now() + CLAIM_WAIT_MS
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const [doc, delta] = await Promise.all([this.collection.findOne({ _id: userId }), this.collection.findOne({ _id: deltaKey(userId) })])
      const layout = layoutOf(doc, delta)
      if (layout === 'unsettled' && Date.now() < deadline) {
        await sleep(pause)
        continue
      }
      if (layout === 'lost' || layout === 'unsettled') return this.rebuild(userId)
      if (!doc || layout === 'missing') return this.readMissing(userId)
      const summaryEntries = decodedEntries(doc.entries)
      // Kept when the delta names this revision (it has one and it is current): then only the delta is read next time.
      if (doc.delta && delta?.base === doc.revision) this.kept.set(userId, { revision: doc.revision, entries: summaryEntries })
      else this.kept.delete(userId)
      const entries = mergedEntries(summaryEntries, layout.changes)
      return complete(entries) ? { _id: userId, entries, revision: layout.revision } : this.rebuild(userId)
    }
  }

  /** No summary: once every user's summary was built, no summary is no environment (no scan for a new user). */
  private async readMissing(userId: string): Promise<SummaryDocument> {
    if (!(await this.allBuilt())) return this.rebuild(userId)
    const doc = await this.collection.findOne({ _id: userId })
    return doc ? this.read(userId) : empty(userId)
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
    // A rebuild always writes the summary whole, so it returns it.
    return this.lock(userId, () => this.guarded(userId, async () => (await this.changeNow(userId, 'rebuild'))!))
  }

  /**
   * Puts the record's entry in (unless the summary has a newer version of it). The caller holds the
   * owner's lock (the repository's create and replace write the record and its entry under it).
   */
  put(doc: Summarized): Promise<void> {
    return this.changeHeld(doc.userId, { id: doc._id, entry: entryOf(doc) })
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
    return this.changeHeld(userId, { id, entry: null })
  }

  /** `change` for a caller that holds the owner's lock already (the lock is not re-entrant). */
  private async changeHeld(userId: string, edit: Edit): Promise<void> {
    await this.guarded(userId, () => this.changeNow(userId, edit))
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
   * Makes the edit (or a rebuild from the records) as the summary's next revision: in the delta when
   * the summary has one (only the small delta is read and written; past `foldAt` changes it is folded
   * into the summary), else in the summary. Across replicas the revision is claimed first by
   * inserting `<user>:<revision>` into `environment_summary_claims` (a unique `_id`, atomic on every
   * store, where FerretDB's conditional updates are not): the one writer that claimed it writes it;
   * the others re-read and re-apply their edit on top. A revision claimed but never written (its
   * writer died), or a delta left unsettled, is given up on after CLAIM_WAIT_MS: the next revision is
   * a rebuild from the records. Returns the summary when it was written whole.
   */
  private async changeNow(userId: string, edit: Edit | 'rebuild'): Promise<SummaryDocument | null> {
    const deadline = Date.now() + CLAIM_WAIT_MS
    let skip = 0 // revisions claimed but not written, past the deadline
    let trustDelta = edit !== 'rebuild' // the first attempt (see `current`)
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const [head, delta] = await this.current(userId, trustDelta)
      trustDelta = false
      const layout = layoutOf(head, delta)
      // A database from before summaries: the one scan builds them all, then this one is read again.
      if (layout === 'missing' && (await this.allBuilt()) && (await this.collection.findOne({ _id: userId }, { projection: { _id: 1 } })))
        continue
      const abandoned = Date.now() > deadline
      if (layout === 'unsettled' && !abandoned) {
        await sleep(pause * (0.5 + Math.random()))
        continue
      }
      if (abandoned) skip++
      const plan =
        edit === 'rebuild' || abandoned || layout === 'lost' || layout === 'unsettled'
          ? ({ write: 'summary', entries: 'records', hasDelta: !!delta } as const)
          : await this.plan(userId, head, layout, edit)
      if (plan === null) return null
      const revision = Math.max(head?.revision ?? 0, delta?.revision ?? 0) + 1 + skip
      if (await this.claim(userId, revision)) {
        const written = await this.write(userId, plan, revision)
        // The claim of a revision written whole is kept (see `current`): one in FOLD_AT writes.
        const whole = plan.write === 'fold' || (plan.write === 'summary' && plan.entries === 'records')
        if (revision > KEPT_CLAIMS && !whole) await this.claims.deleteOne({ _id: `${userId}:${revision - KEPT_CLAIMS}` })
        return written
      }
      await sleep(pause * (0.5 + Math.random()))
    }
  }

  /**
   * The summary (without its entries) and its delta. Trusting the delta, a summary that has one is
   * not read at all (reading 10,000 entries costs more than the rest of a write): it is taken to be
   * the revision the delta applies to. Were it written since (a fold, a rebuild), the revision after
   * the delta's was claimed by that write and its claim kept, so this writer's claim fails and its
   * next attempt reads both.
   */
  private async current(userId: string, trustDelta: boolean): Promise<[Omit<StoredSummary, 'entries'> | null, StoredSummary | null]> {
    const head = () => this.collection.findOne({ _id: userId }, { projection: { entries: 0 } })
    const delta = () => this.collection.findOne({ _id: deltaKey(userId) })
    if (!trustDelta) return Promise.all([head(), delta()])
    const known = await delta()
    if (known?.base !== undefined) return [{ _id: userId, revision: known.base, delta: true }, known]
    return [await head(), known]
  }

  /** What making the edit writes (null: nothing, it is made already). */
  private async plan(
    userId: string,
    head: Omit<StoredSummary, 'entries'> | null,
    layout: Exclude<Layout, 'lost' | 'unsettled'>,
    edit: Edit,
  ): Promise<Plan | null> {
    if (layout !== 'missing' && head?.delta) {
      const changes = recordEdit(decodeChanges(layout.changes), edit)
      if (!changes) return null
      return { write: changes.size > this.foldAt ? 'fold' : 'delta', changes, base: head.revision }
    }
    const doc = layout === 'missing' ? null : await this.collection.findOne({ _id: userId })
    const entries = doc ? decodedEntries(doc.entries) : []
    if (!complete(entries)) return { write: 'summary', entries: 'records', hasDelta: layout !== 'missing' && layout.hasDelta }
    const next = editEntries(entries, edit)
    return next && { write: 'summary', entries: next, hasDelta: layout !== 'missing' && layout.hasDelta }
  }

  /** Writes the claimed revision as planned; returns the summary when it was written whole. */
  private async write(userId: string, plan: Plan, revision: number): Promise<SummaryDocument | null> {
    if (plan.write === 'delta') {
      const delta = { entries: encodeChanges(plan.changes), base: plan.base, revision }
      await this.collection.replaceOne({ _id: deltaKey(userId) }, delta, { upsert: true })
      return null
    }
    const entries =
      plan.write === 'fold' ? await this.folded(userId, plan) : plan.entries === 'records' ? await this.recordsOf(userId) : plan.entries
    const hasDelta = plan.write === 'fold' || plan.hasDelta
    const delta = hasDelta || entries.length >= this.foldAt
    // A summary with a delta: the (empty) delta naming this revision first, so that a summary marked
    // `delta` lacks one only when it was lost, and the delta always names the summary's newest
    // revision (a reader that kept an older one reads the summary again); meanwhile it reads as
    // unsettled. Another writer's delta is never overwritten: it would have claimed a later revision.
    if (delta) await this.collection.replaceOne({ _id: deltaKey(userId) }, { entries: '', base: revision, revision }, { upsert: true })
    // A delta left beside it now applies to an older revision: folded in.
    await this.collection.replaceOne({ _id: userId }, { entries: encodeEntries(entries), revision, delta }, { upsert: true })
    return { _id: userId, entries, revision }
  }

  /** The summary with the delta's changes applied; the records when it is not the revision the delta applies to (rebuilt meanwhile, or lost). */
  private async folded(userId: string, plan: { changes: Changes; base: number }): Promise<SummaryEntry[]> {
    const doc = await this.collection.findOne({ _id: userId })
    return doc?.revision === plan.base ? applyChanges(decodedEntries(doc.entries), plan.changes) : this.recordsOf(userId)
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
