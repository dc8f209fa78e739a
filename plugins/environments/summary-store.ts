// How a user's environment summary is stored (summaries.ts has the protocol that reads and changes
// it): the summary document and its delta, the layout they stand in when read, what a writer plans to
// write, the claims of revisions, and the one scan that builds every missing summary.
import type { Collection, Db } from 'mongodb'
import type { StoredEnvironment } from './stored-form.ts'
import { applyChanges, encodeChanges, type Changes } from './summary-delta.ts'
import { encodeEntries, type SummaryEntry } from './summary-entries.ts'
import { decodedEntries, entryOf } from './summary-selection.ts'

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
export interface StoredSummary {
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
export const deltaKey = (userId: string) => `${userId}:delta`

/**
 * How a summary and its delta, as read, stand. `changes`: the delta's text to apply ('' when the
 * summary has no delta, or the delta was folded into it already); `revision`: the newest revision
 * written. 'missing': neither exists. 'lost': the summary has a delta and the delta is gone.
 * 'unsettled': the delta names a summary revision not (yet) written: a writer that starts a delta
 * writes it before the summary; the summary follows, or the writer died and it is rebuilt.
 */
export type Layout = { changes: string; revision: number; hasDelta: boolean } | 'missing' | 'lost' | 'unsettled'

export function layoutOf(head: Omit<StoredSummary, 'entries'> | null, delta: StoredSummary | null): Layout {
  if (!head) return delta ? 'unsettled' : 'missing'
  if (delta && (delta.base ?? 0) > head.revision) return 'unsettled'
  if (head.delta && !delta) return 'lost'
  const applies = head.delta && delta?.base === head.revision
  return { changes: applies ? delta.entries : '', revision: Math.max(head.revision, delta?.revision ?? 0), hasDelta: !!delta }
}

/** What a writer writes once it claimed the revision (see `changeNow`). */
export type Plan =
  | { write: 'summary'; entries: SummaryEntry[] | 'records'; hasDelta: boolean }
  | { write: 'delta'; changes: Changes; base: number }
  | { write: 'fold'; changes: Changes; base: number }

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

export const empty = (userId: string): SummaryDocument => ({ _id: userId, entries: [], revision: 0 })

function ignoreDuplicate(err: unknown): void {
  if ((err as { code?: unknown }).code !== 11000) throw err
}

/** A user's summary, its delta and the revision claims as stored, and the records they are built from. */
export class SummaryStore {
  readonly collection: Collection<StoredSummary>
  /** `<user>:<revision>`: inserted before that revision of the summary is written (see `write`). */
  readonly claims: Collection<{ _id: string; at: Date }>

  constructor(
    db: Db,
    private readonly environments: Collection<StoredEnvironment>,
    /** A delta of more changes is folded into its summary (FOLD_AT; tests fold sooner). */
    private readonly foldAt: number,
  ) {
    this.collection = db.collection<StoredSummary>('environment_summaries')
    this.claims = db.collection('environment_summary_claims')
  }

  /**
   * True once every user's summary exists. The first time a summary is missing on a database
   * without the `#all` marker (a database from before summaries, or a new one), one scan of the
   * environments builds every user's summary that is missing and sets the marker; after that a
   * missing summary means a user without environments, which costs no scan.
   */
  async allBuilt(): Promise<boolean> {
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

  /**
   * The summary (without its entries) and its delta. Trusting the delta, a summary that has one is
   * not read at all (reading 10,000 entries costs more than the rest of a write): it is taken to be
   * the revision the delta applies to. Were it written since (a fold, a rebuild), the revision after
   * the delta's was claimed by that write and its claim kept, so this writer's claim fails and its
   * next attempt reads both.
   */
  async current(userId: string, trustDelta: boolean): Promise<[Omit<StoredSummary, 'entries'> | null, StoredSummary | null]> {
    const head = () => this.collection.findOne({ _id: userId }, { projection: { entries: 0 } })
    const delta = () => this.collection.findOne({ _id: deltaKey(userId) })
    if (!trustDelta) return Promise.all([head(), delta()])
    const known = await delta()
    if (known?.base !== undefined) return [{ _id: userId, revision: known.base, delta: true }, known]
    return [await head(), known]
  }

  /** Writes the claimed revision as planned; returns the summary when it was written whole. */
  async write(userId: string, plan: Plan, revision: number): Promise<SummaryDocument | null> {
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
  async folded(userId: string, plan: { changes: Changes; base: number }): Promise<SummaryEntry[]> {
    const doc = await this.collection.findOne({ _id: userId })
    return doc?.revision === plan.base ? applyChanges(decodedEntries(doc.entries), plan.changes) : this.recordsOf(userId)
  }

  /**
   * True when this writer claimed the revision. Claims of the last KEPT_CLAIMS revisions stay, so a
   * writer that read a summary a few revisions old cannot claim a revision that has been written.
   */
  async claim(userId: string, revision: number): Promise<boolean> {
    try {
      await this.claims.insertOne({ _id: `${userId}:${revision}`, at: new Date() })
      return true
    } catch (err) {
      if ((err as { code?: unknown }).code === 11000) return false
      throw err
    }
  }

  async recordsOf(userId: string): Promise<SummaryEntry[]> {
    const records = await this.environments.find({ userId }, { projection: SUMMARY_FIELDS }).toArray()
    return records.map(entryOf)
  }
}
