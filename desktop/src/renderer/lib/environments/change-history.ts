// How the History tab words an environment's changes: a label per kind, a value as it reads in a
// diff, and which entries can be restored (those that carry a configuration).
import type { HistoryEntry } from '../api/types.ts'

export const KIND_LABELS: Record<HistoryEntry['kind'], string> = {
  create: 'Created',
  update: 'Changed',
  credential: 'Credential changed',
  restore: 'Restored',
  delete: 'Deleted',
  generate: 'Generated',
  push: 'Pushed',
  'push-dry-run': 'Push previewed',
  plan: 'Planned',
  drift: 'Checked for drift',
  upgrade: 'Upgraded',
  'credential-rotated': 'Credential rotated',
  'approval-requested': 'Push awaiting approval',
  'approval-approved': 'Push approved',
  'approval-rejected': 'Push rejected',
  'approval-expired': 'Approval expired',
  migrate: 'Migrated by the templates',
}

const RESTORABLE = new Set<HistoryEntry['kind']>(['create', 'update', 'credential', 'restore'])

/** True when the entry recorded a configuration that Restore can set again. */
export const restorable = (entry: HistoryEntry) => RESTORABLE.has(entry.kind)

/** A value in the diff: `not set` for none, strings as they are, anything else as JSON. */
export function diffValue(value: unknown): string {
  if (value === undefined || value === null) return 'not set'
  if (typeof value === 'string') return value === '' ? '""' : value
  return JSON.stringify(value)
}

/** One line about the entry beside its kind: what it touched, its job, where a restore came from. */
export function entryLine(entry: HistoryEntry): string {
  const parts: string[] = []
  if (entry.restoredFrom) parts.push(`configuration of #${entry.restoredFrom}`)
  const fields = (entry.changes ?? []).length
  if (entry.kind === 'create') parts.push(`${fields} settings`)
  else if (fields > 0) parts.push(`${fields} ${fields === 1 ? 'field' : 'fields'}`)
  if (entry.secretsChanged?.length) parts.push('deploy key replaced')
  if (entry.jobId) parts.push(`job ${entry.jobId.slice(0, 8)}`)
  return parts.join(' · ')
}
