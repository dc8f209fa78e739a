// A history entry as the store keeps it: the diff and the configuration as JSON text.
import type { ChangeKind, Configuration, FieldChange } from '@ies/api/schemas/history'

/** An entry as stored (`at` a Date). */
export interface StoredEntry {
  id: number
  environmentId: string
  environmentName: string
  kind: ChangeKind
  at: Date
  actor: { userId: string; username: string }
  requestId: string
  jobId?: string
  changes?: FieldChange[]
  secretsChanged?: string[]
  restoredFrom?: number
  credentialId?: string
  plan?: string
  error?: { code: string; message: string }
  configuration?: Configuration
}

export type NewEntry = Omit<StoredEntry, 'id'>

/**
 * An entry as its document (or a legacy page) holds it: the diff and the configuration as JSON text.
 * The database never looks into them, and the embedded store's cost of reading a document grows with
 * its number of fields (a configuration of every service has hundreds): as text, it reads several
 * times faster. `detached` only on legacy pages (legacy-pages.ts).
 */
export type EncodedEntry = Omit<StoredEntry, 'changes' | 'configuration'> & { changes?: string; configuration?: string; detached?: true }

export function encode({ changes, configuration, ...rest }: StoredEntry): EncodedEntry {
  return {
    ...rest,
    ...(changes && { changes: JSON.stringify(changes) }),
    ...(configuration && { configuration: JSON.stringify(configuration) }),
  }
}

export function decode({ changes, configuration, ...rest }: EncodedEntry): StoredEntry {
  return {
    ...rest,
    ...(changes !== undefined && { changes: JSON.parse(changes) as FieldChange[] }),
    ...(configuration !== undefined && { configuration: JSON.parse(configuration) as Configuration }),
  }
}
