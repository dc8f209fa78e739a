// An assistant suggestion applied to the wizard's values. Paths are the catalog's: a global field
// (`name`, `globalPrefix`, `region`, `domain`) or `services.<key>.<field>`. The immutable name and
// global prefix are refused when editing a stored environment, and so is any other path.
import type { WizardValues } from './values.ts'

const GLOBAL_FIELDS = ['name', 'globalPrefix', 'region', 'domain'] as const
const IMMUTABLE = new Set(['name', 'globalPrefix'])

export type ApplyOutcome = { values: WizardValues } | { refused: string }

export function applySuggestion(values: WizardValues, path: string, value: string | number | boolean, editing: boolean): ApplyOutcome {
  const global = (GLOBAL_FIELDS as readonly string[]).includes(path)
  if (global) {
    if (editing && IMMUTABLE.has(path)) return { refused: `${path} cannot change after creation` }
    return { values: { ...values, [path]: String(value) } }
  }
  const parts = path.split('.')
  if (parts.length === 3 && parts[0] === 'services' && parts[1] && parts[2]) {
    const [, service, field] = parts
    return { values: { ...values, services: { ...values.services, [service]: { ...values.services[service], [field]: value } } } }
  }
  return { refused: `The wizard has no field ${path}` }
}
