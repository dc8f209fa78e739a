// Reading lists of environments from the owners' summaries (summaries.ts): a page of list rows for
// a caller (their own and their teams'), a page of one owner's records, and records by id.
import type { Collection } from 'mongodb'
import pMap from 'p-map'
import type { SORTS } from '@ies/api/schemas/environments'
import type { Caller, Scope } from '../teams/scopes.ts'
import type { EnvironmentRecord } from './record.ts'
import { fromStored, type StoredEnvironment } from './stored-form.ts'
import type { EnvironmentSummaries } from './summaries.ts'
import { entryMatches, mergeSelections, select } from './summary-selection.ts'
import type { SummaryEntry } from './summary-entries.ts'

export interface ListOptions {
  page: number
  limit: number
  provider?: string
  status?: string
  sort?: keyof typeof SORTS
  order?: 'asc' | 'desc'
  /** Only this team's environments (by name). */
  team?: string
  /** Only environments with these labels (a selector, `tier=production,cost-centre=ops`). */
  label?: string
}

/** A list row: the summary entry, and the scope (team, caller's role) it was listed from. */
export interface ListRow extends SummaryEntry {
  team?: string
  role: Scope['role']
}

/** How many records of a list page are read at once (each by `_id`). */
const PAGE_READS = 8

/** How often a user's list page is compared with its records, per process (see `listRows`). */
const VERIFY_EVERY_MS = 60_000

export class EnvironmentLists {
  private readonly verifiedAt = new Map<string, number>()

  constructor(
    private readonly collection: Collection<StoredEnvironment>,
    private readonly summaries: EnvironmentSummaries,
    /** The caller's own scope and their teams' (one team's when `team` is named). */
    private readonly scopes: (caller: Caller, team?: string) => Promise<Scope[]>,
  ) {}

  /**
   * One page of the user's environments as list rows, and their total, from the user's summary alone
   * (one `_id` read, whatever the page's size): its entries carry every field a row shows. After
   * answering, at most once a minute per user in this process, the page's records are compared with
   * their entries in the background; one that disagrees (a summary update lost to a crash between
   * the two writes) rebuilds the summary for the next list. An update that failed in this process
   * marks the summary for a rebuild at once (summaries.ts).
   */
  async rows(caller: Caller, opts: ListOptions): Promise<{ items: ListRow[]; total: number }> {
    // Without a team filter the caller's own summary is one of those read: read it beside their
    // scopes (their teams, by `_id`), one round trip fewer.
    const own = opts.team === undefined ? this.summaries.read(caller.userId) : undefined
    own?.catch(() => {}) // a failed read fails the request below
    const scopes = await this.scopes(caller, opts.team)
    const summaries = await Promise.all(
      scopes.map((scope) => (own && scope.ownerKey === caller.userId ? own : this.summaries.read(scope.ownerKey))),
    )
    const { entries: selected, sourceOf } = mergeSelections(
      summaries.map((summary) => select(summary.entries, opts)),
      opts,
    )
    const page = selected.slice((opts.page - 1) * opts.limit, opts.page * opts.limit)
    const items = page.map((entry): ListRow => {
      const scope = scopes[sourceOf(entry)]
      return { ...entry, ...(scope.team && { team: scope.team.name }), role: scope.role }
    })
    for (const scope of scopes) {
      const key = scope.ownerKey
      if ((this.verifiedAt.get(key) ?? 0) + VERIFY_EVERY_MS >= Date.now()) continue
      this.verifiedAt.set(key, Date.now())
      void this.verify(
        key,
        items.filter((_e, i) => scopes[sourceOf(page[i])] === scope),
      ).catch(() => this.verifiedAt.delete(key))
    }
    return { items, total: selected.length }
  }

  /**
   * Rebuilds the user's summary when an entry disagrees with its record. One `$in` query: on MongoDB
   * the `_id` index answers it; on FerretDB it reads the table once, where each `{ _id }` read would
   * walk it up to its row (twenty walks to the end of a large table cost many times one scan).
   */
  private async verify(userId: string, entries: SummaryEntry[]): Promise<void> {
    if (entries.length === 0) return
    const docs = await this.collection.find({ _id: { $in: entries.map((e) => e.id) } }).toArray()
    const byId = new Map(docs.map((d) => [d._id, d]))
    if (!entries.every((e) => entryMatches(e, byId.get(e.id) ?? null, userId))) await this.summaries.rebuild(userId)
  }

  /**
   * One page of the user's environments and their total: the user's summary (one `_id` read) is
   * filtered, sorted and paged in memory, then the page's records are read by `_id`. An entry that
   * disagrees with its record (a summary update was lost) rebuilds the summary, once.
   */
  async page(userId: string, opts: ListOptions): Promise<{ items: EnvironmentRecord[]; total: number }> {
    for (let attempt = 0; ; attempt++) {
      const summary = attempt === 0 ? await this.summaries.read(userId) : await this.summaries.rebuild(userId)
      const selected = select(summary.entries, opts)
      const entries = selected.slice((opts.page - 1) * opts.limit, opts.page * opts.limit)
      // A few reads at a time: a page of 100 at once would open that many connections.
      const docs = await pMap(entries, (e) => this.collection.findOne({ _id: e.id }), { concurrency: PAGE_READS })
      if (attempt === 0 && !entries.every((e, i) => entryMatches(e, docs[i], userId))) continue
      const items = docs.filter((d): d is StoredEnvironment => d?.userId === userId).map(fromStored)
      return { items, total: selected.length }
    }
  }

  /**
   * The records of `ids` as stored (by `_id`, a few at a time; a missing one left out). Only for ids
   * taken from the caller's own list rows (`listRows`), never from a request.
   */
  async records(ids: readonly string[]): Promise<EnvironmentRecord[]> {
    const docs = await pMap(ids, (id) => this.collection.findOne({ _id: id }), { concurrency: PAGE_READS })
    return docs.filter((d): d is StoredEnvironment => d !== null).map(fromStored)
  }
}
