// The configuration export (spec, Environments: there is no export endpoint; the client assembles
// the export itself, without credential fields). JSON or YAML.
import { stringify } from 'yaml'
import type { Environment } from './types.ts'

export type ExportFormat = 'json' | 'yaml'

/** Fields of an environment that are never exported: credentials, secrets, and server bookkeeping. */
// `lastPush` and `behind` are the server's record of the repository, not configuration.
const DROPPED = new Set([
  'id',
  'status',
  'createdAt',
  'updatedAt',
  'cloudCredentialId',
  'credentials',
  'userId',
  'ownerId',
  'lastPush',
  'behind',
])
const DROPPED_GIT = new Set(['deployKey', 'hasDeployKey', 'privateKey', 'password', 'token'])

export function exportableConfiguration(env: Environment | Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(env)) {
    if (DROPPED.has(key) || value === undefined) continue
    if (key === 'gitRepository' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).filter(([k]) => !DROPPED_GIT.has(k)))
    } else out[key] = value
  }
  return out
}

export function exportConfiguration(env: Environment | Record<string, unknown>, format: ExportFormat): string {
  const config = exportableConfiguration(env)
  return format === 'json' ? `${JSON.stringify(config, null, 2)}\n` : stringify(config)
}

export function exportFileName(name: string, format: ExportFormat) {
  return `${name || 'environment'}.${format === 'json' ? 'json' : 'yaml'}`
}
