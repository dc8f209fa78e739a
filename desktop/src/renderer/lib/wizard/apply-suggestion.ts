// An assistant suggestion applied to the wizard's values. Paths are the catalog's: a global field
// (`name`, `globalPrefix`, `region`, `domain`) or `services.<key>.<field>`. The immutable name and
// global prefix are refused when editing a stored environment, and so is any other path.
import { catalogPathParts, withValueAt } from '@ies/processor-lib/contract/paths'
import type { WizardValues } from './values.ts'

const GLOBAL_FIELDS = ['name', 'globalPrefix', 'region', 'domain'] as const
const IMMUTABLE = new Set(['name', 'globalPrefix'])

export type ApplyOutcome = { values: WizardValues } | { refused: string }

export function applySuggestion(values: WizardValues, path: string, value: string | number | boolean, editing: boolean): ApplyOutcome {
  const parts = catalogPathParts(path)
  const global = (GLOBAL_FIELDS as readonly string[]).includes(path)
  if (global && editing && IMMUTABLE.has(path)) return { refused: `${path} cannot change after creation` }
  if (global) return { values: withValueAt(values, path, String(value)) }
  if (parts?.service !== undefined) return { values: withValueAt(values, path, value) }
  return { refused: `The wizard has no field ${path}` }
}
