// The one place that says which paths of an environment the catalog offers and which values pass
// there (the environment checks of the API and the assistant use it):
// the catalog's own paths (`name`, `globalPrefix`, `region`, `domain`, `services.<key>.<field>`),
// the catalog's types, options and patterns, and the spec's rules for the global fields.
import { explainPattern } from './pattern-message.ts'
import type { TypedCatalog as Catalog, TypedField as CatalogField } from './view.ts'

/**
 * How a value is tested against a catalog pattern: `match`, `no-match`, `uncompilable` (the check is
 * dropped, like the wizard's rule 2) or `unsafe` (the pattern could not be evaluated in bounds). The
 * server passes its time-boxed tester (server/src/core/safe-pattern.ts).
 */
export type PatternTest = (pattern: string, value: string) => 'match' | 'no-match' | 'uncompilable' | 'unsafe'

export const GLOBAL_KEYS = ['name', 'globalPrefix', 'region', 'domain'] as const

export interface FieldRef {
  path: string
  /** Undefined for a global field. */
  service?: string
  key: string
  field: CatalogField
}

/**
 * The spec's rules for environment fields ("Resources and their fields"), checked on top of the
 * catalog's pattern: the name is 3–50 characters of the stated pattern, the region is lowercase
 * letters, digits and hyphens, the domain at most 253 characters.
 */
const SPEC_RULES: Record<string, (value: string) => string | null> = {
  name: (v) =>
    /^[a-z][a-z0-9-]{2,62}$/.test(v) && v.length <= 50 ? null : 'must be 3–50 lowercase letters, digits or hyphens, starting with a letter',
  region: (v) => (/^[a-z0-9-]+$/.test(v) ? null : 'must be lowercase letters, digits and hyphens'),
  domain: (v) => (v.length <= 253 ? null : 'must be at most 253 characters'),
}

const isAvailable = (x: { available?: boolean }) => x.available !== false

/** The catalog field at a path, or null when the catalog has no (available) field there. */
export function fieldAt(catalog: Catalog, path: string): FieldRef | null {
  const parts = path.split('.')
  if (parts.length === 1) {
    const field = Object.hasOwn(catalog.global.fields, path) ? catalog.global.fields[path] : undefined
    return field && isAvailable(field) ? { path, key: path, field } : null
  }
  if (parts.length !== 3 || parts[0] !== 'services') return null
  const [, service, key] = parts
  const entry = Object.hasOwn(catalog.services, service) ? catalog.services[service] : undefined
  if (!entry || !isAvailable(entry)) return null
  const field = Object.hasOwn(entry.fields, key) ? entry.fields[key] : undefined
  return field && isAvailable(field) ? { path, service, key, field } : null
}

/** Every path the catalog offers, in catalog order (globals first). */
export function catalogPaths(catalog: Catalog): FieldRef[] {
  const refs: FieldRef[] = []
  for (const key of Object.keys(catalog.global.fields)) {
    const ref = fieldAt(catalog, key)
    if (ref) refs.push(ref)
  }
  for (const [service, entry] of Object.entries(catalog.services)) {
    for (const key of Object.keys(entry.fields)) {
      const ref = fieldAt(catalog, `services.${service}.${key}`)
      if (ref) refs.push(ref)
    }
  }
  return refs
}

/** Why a value does not fit a catalog field, or null when it does. */
export function valueProblem(ref: FieldRef, value: unknown, testPattern: PatternTest): string | null {
  const { field } = ref
  switch (field.type) {
    case 'toggle':
      if (typeof value !== 'boolean') return 'must be true or false'
      return null
    case 'dropdown': {
      const options = field.options ?? []
      if (!options.some((o) => o.value === value)) {
        return `must be one of: ${options.map((o) => JSON.stringify(o.value)).join(', ')}`
      }
      return null
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number'
      return patternProblem(field, String(value), testPattern)
    default: {
      if (typeof value !== 'string') return 'must be text'
      const spec = ref.service === undefined ? SPEC_RULES[ref.key]?.(value) : null
      return spec ?? patternProblem(field, value, testPattern)
    }
  }
}

/**
 * A value that does not match its pattern, in words (the regex only as a detail): the
 * pattern explained ("must be a whole number of 1 or more"), else the default as an example.
 */
function patternSentence(field: CatalogField): string {
  const pattern = field.pattern ?? ''
  const rule = explainPattern(pattern)
  if (rule) return `must be ${rule} (pattern ${pattern})`
  const example = (typeof field.default === 'string' && field.default !== '') || typeof field.default === 'number'
  return `is not in the expected form${example ? `, like ${JSON.stringify(field.default)}` : ''} (pattern ${pattern})`
}

function patternProblem(field: CatalogField, text: string, testPattern: PatternTest): string | null {
  if (!field.pattern) return null
  switch (testPattern(field.pattern, text)) {
    case 'match':
    case 'uncompilable': // like the wizard: a pattern that does not compile drops only this check
      return null
    case 'unsafe':
      return 'cannot be checked: the catalog pattern took too long to evaluate'
    default:
      return patternSentence(field)
  }
}
