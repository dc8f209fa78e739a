// The configuration export as YAML (`ies env export`); which fields are exported is the API
// contract's rule (api/src/export-config.ts), shared with the desktop's export.
import { stringify } from 'yaml'
import { exportableConfiguration } from '@ies/api/export-config'

export { exportableConfiguration }

export function exportYaml(env: object): string {
  return stringify(exportableConfiguration(env))
}
