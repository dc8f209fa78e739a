// One environment's line in its owner's summary (summaries.ts) and in the summary's delta
// (summary-delta.ts), and the text form both store their entries in (see StoredSummary in summaries.ts).
import type { EnvironmentRecord } from './record.ts'

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
