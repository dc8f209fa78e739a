// Selecting from a user's environment summary (summaries.ts): a record's entry, the list query's
// filters and order, and the caches of decoded summaries and of the selections made from them.
import { LRUCache } from 'lru-cache'
import type { EnvironmentRecord } from './record.ts'
import { parseLabelSelector, SORTS } from '@ies/api/schemas/environments'
import { applyChanges, decodeChanges } from './summary-delta.ts'
import { decodeEntries, encodeLabels, type SummaryEntry } from './summary-entries.ts'

/** False for a summary stored before entries carried everything a list row shows: it is rebuilt. */
export const complete = (entries: SummaryEntry[]): boolean => entries.every((e) => !Number.isNaN(e.updatedAt.getTime()))

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

export function decodedEntries(text: string): SummaryEntry[] {
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
export function mergedEntries(entries: SummaryEntry[], delta: string): SummaryEntry[] {
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

export interface SummaryQuery {
  provider?: string
  status?: string
  /** A label selector (`key=value` or `key`, comma-separated; all must match). */
  label?: string
  sort?: keyof typeof SORTS
  order?: 'asc' | 'desc'
}

/** The fields of a record its summary entry describes (SUMMARY_FIELDS), whichever form it was read in. */
export type Summarized = Pick<
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
