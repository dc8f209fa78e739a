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
// Maintained after each write of an environment (create, replace, move, remove; derived-lists.ts), under
// the owner's lock in this process and, across replicas, by claiming each revision (of the summary or
// its delta, whichever holds the newer) with an insert before writing it (`changeNow`; a loser
// re-reads and re-applies its change). An entry is only replaced by one of a newer environment
// version, so re-applying converges. It is rebuilt from the environments collection (the one scan,
// per user) when it is missing, when its delta is missing or names a summary revision never written
// (a write lost between the two documents), when a list finds an entry that disagrees with its
// record (a write whose summary update was lost: a crash or an outage between the two writes), or
// when a summary update failed in this process.
//
// The stored form (documents, layouts, claims, the one scan) is summary-store.ts; selecting from a
// summary (filters, order, the caches of decoded entries) is summary-selection.ts.
import { setTimeout as sleep } from 'node:timers/promises'
import { LRUCache } from 'lru-cache'
import type { Collection, Db } from 'mongodb'
import type { StoredEnvironment } from './stored-form.ts'
import { decodeChanges, editEntries, recordEdit, type Edit } from './summary-delta.ts'
import type { SummaryEntry } from './summary-entries.ts'
import { complete, decodedEntries, entryOf, mergedEntries, type Summarized } from './summary-selection.ts'
import {
  deltaKey,
  empty,
  FOLD_AT,
  layoutOf,
  SummaryStore,
  type Layout,
  type Plan,
  type StoredSummary,
  type SummaryDocument,
} from './summary-store.ts'

/** How long a summary update waits, in all, for another writer's claimed revision to appear. */
const CLAIM_WAIT_MS = 2000
/** Claims of the last this many revisions per user are kept (see `write`). */
const KEPT_CLAIMS = 16

export class EnvironmentSummaries {
  /** The documents, deltas and claims as stored (summary-store.ts). */
  readonly store: SummaryStore
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
    environments: Collection<StoredEnvironment>,
    /** The owner's lock (`ownerLock`, as the record's writes take it): one summary write per user at a time in this process. */
    private readonly lock: <T>(userId: string, fn: () => Promise<T>) => Promise<T>,
    /** A delta of more changes is folded into its summary (FOLD_AT; tests fold sooner). */
    private readonly foldAt = FOLD_AT,
  ) {
    this.store = new SummaryStore(db, environments, foldAt)
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
      const delta = await this.store.collection.findOne({ _id: deltaKey(userId) })
      if (delta?.base === kept.revision) {
        const entries = mergedEntries(kept.entries, delta.entries)
        if (complete(entries)) return { _id: userId, entries, revision: Math.max(kept.revision, delta.revision) }
      }
    }
    const deadline = Date.now() + CLAIM_WAIT_MS
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const [doc, delta] = await Promise.all([
        this.store.collection.findOne({ _id: userId }),
        this.store.collection.findOne({ _id: deltaKey(userId) }),
      ])
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
    if (!(await this.store.allBuilt())) return this.rebuild(userId)
    const doc = await this.store.collection.findOne({ _id: userId })
    return doc ? this.read(userId) : empty(userId)
  }

  /** Reads every environment of the user (the one scan) and stores the summary anew. */
  rebuild(userId: string): Promise<SummaryDocument> {
    // A rebuild always writes the summary whole, so it returns it.
    return this.lock(userId, () => this.guarded(userId, async () => (await this.changeNow(userId, 'rebuild'))!))
  }

  /**
   * Puts the record's entry in (unless the summary has a newer version of it). The caller holds the
   * owner's lock (create and replace, writes.ts, write the record and its entry under it).
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
      const [head, delta] = await this.store.current(userId, trustDelta)
      trustDelta = false
      const layout = layoutOf(head, delta)
      // A database from before summaries: the one scan builds them all, then this one is read again.
      if (
        layout === 'missing' &&
        (await this.store.allBuilt()) &&
        (await this.store.collection.findOne({ _id: userId }, { projection: { _id: 1 } }))
      )
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
      if (await this.store.claim(userId, revision)) {
        const written = await this.store.write(userId, plan, revision)
        // The claim of a revision written whole is kept (see `current`): one in FOLD_AT writes.
        const whole = plan.write === 'fold' || (plan.write === 'summary' && plan.entries === 'records')
        if (revision > KEPT_CLAIMS && !whole) await this.store.claims.deleteOne({ _id: `${userId}:${revision - KEPT_CLAIMS}` })
        return written
      }
      await sleep(pause * (0.5 + Math.random()))
    }
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
    const doc = layout === 'missing' ? null : await this.store.collection.findOne({ _id: userId })
    const entries = doc ? decodedEntries(doc.entries) : []
    if (!complete(entries)) return { write: 'summary', entries: 'records', hasDelta: layout !== 'missing' && layout.hasDelta }
    const next = editEntries(entries, edit)
    return next && { write: 'summary', entries: next, hasDelta: layout !== 'missing' && layout.hasDelta }
  }
}
