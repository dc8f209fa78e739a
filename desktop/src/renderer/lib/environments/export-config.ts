// The configuration export (spec, Environments: there is no export endpoint; the client assembles
// the export itself, without credential fields). JSON or YAML, with the API contract's rules of what is
// configuration (api/src/export-config.ts), so `ies apply` takes either file.
import { stringify } from 'yaml'
import { exportableConfiguration } from '@ies/api/export-config'
import type { Environment } from '../api/types.ts'

export type ExportFormat = 'json' | 'yaml'

export { exportableConfiguration }

export function exportConfiguration(env: Environment | Record<string, unknown>, format: ExportFormat): string {
  const config = exportableConfiguration(env)
  return format === 'json' ? `${JSON.stringify(config, null, 2)}\n` : stringify(config)
}

export function exportFileName(name: string, format: ExportFormat) {
  return `${name || 'environment'}.${format === 'json' ? 'json' : 'yaml'}`
}
