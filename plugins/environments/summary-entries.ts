// One environment's line in its owner's summary (summaries.ts) and in the summary's delta
// (summary-delta.ts), and the text form both store their entries in (see StoredSummary in summaries.ts).
import type { Labels } from '@ies/api/schemas/environments'
import type { EnvironmentRecord } from './record.ts'

export interface SummaryEntry {
  id: string
  name: string
  provider: EnvironmentRecord['provider']
  region: string
  status: EnvironmentRecord['status']
  createdAt: Date
  updatedAt: Date
  /** Its labels (none: `{}`); keys and values hold no tab, line break, `,` or `=` (their patterns). */
  labels: Labels
  /** The record's version this entry was taken from (0: a record from before versions). */
  version: number
}

export function encodeEntries(entries: SummaryEntry[]): string {
  return entries
    .map((e) =>
      [e.id, e.name, e.provider, e.status, e.createdAt.getTime(), e.version, e.region, e.updatedAt.getTime(), encodeLabels(e.labels)].join(
        '\t',
      ),
    )
    .join('\n')
}

export function decodeEntries(text: string): SummaryEntry[] {
  if (!text) return []
  return text.split('\n').map((line) => {
    const [id, name, provider, status, created, version, region, updated, labels] = line.split('\t')
    // A line from before `region` and `updatedAt` were kept has no `updated`: see `complete`.
    const updatedAt = new Date(updated === undefined ? NaN : Number(updated))
    const stored = { provider: provider as SummaryEntry['provider'], status: status as SummaryEntry['status'] }
    const dates = { createdAt: new Date(Number(created)), updatedAt }
    return { id, name, ...stored, region: region ?? '', ...dates, version: Number(version), labels: decodeLabels(labels) }
  })
}

/** Labels as `key=value` pairs joined by `,` (a line from before labels were kept has none). */
export function encodeLabels(labels: Labels): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',')
}

function decodeLabels(text: string | undefined): Labels {
  if (!text) return {}
  return Object.fromEntries(text.split(',').map((pair) => pair.split('=') as [string, string]))
}
