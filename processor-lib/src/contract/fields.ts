// The one place that says which paths of an environment the catalog offers and which values pass
// there (the environment checks of the API and the assistant use it):
// the catalog's own paths (`name`, `globalPrefix`, `region`, `domain`, `services.<key>.<field>`),
// the catalog's types, options and patterns, and the spec's rules for the global fields.
import { explainPattern, patternMessage } from './pattern-message.ts'
import { VALUE_MAX_LENGTH } from './pattern-safety.ts'
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

/** The members of a field its value check reads (the typed view's fields and the wizard's have them). */
export interface CheckedField {
  type: CatalogField['type']
  options?: readonly { value: unknown }[]
  /** The pattern as the catalog wrote it. */
  pattern?: string
  default?: unknown
}

/** Which rule of its field a value breaks. */
export type FieldValueProblem =
  | { rule: 'boolean' | 'number' | 'text' | 'unsafe' }
  | { rule: 'option'; options: readonly { value: unknown }[] }
  /** One of the spec's rules for a global field, in words. */
  | { rule: 'spec'; clause: string }
  | { rule: 'pattern'; pattern: string }
  /** Too long to test against the pattern (a pattern is only ever run on VALUE_MAX_LENGTH characters). */
  | { rule: 'too-long'; max: number }

/**
 * The one check of a value against a catalog field: a toggle holds a boolean, a dropdown one of its
 * options, a number a finite number whose decimal text matches the pattern, anything else text that
 * matches it (and, for a global field, the spec's rule). Null when the value fits.
 */
export function fieldValueProblem(
  field: CheckedField,
  value: unknown,
  testPattern: PatternTest,
  specRule?: (value: string) => string | null,
): FieldValueProblem | null {
  switch (field.type) {
    case 'toggle':
      return typeof value === 'boolean' ? null : { rule: 'boolean' }
    case 'dropdown': {
      const options = field.options ?? []
      return options.some((o) => o.value === value) ? null : { rule: 'option', options }
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return { rule: 'number' }
      return patternProblem(field, String(value), testPattern)
    default: {
      if (typeof value !== 'string') return { rule: 'text' }
      const clause = specRule?.(value)
      return clause ? { rule: 'spec', clause } : patternProblem(field, value, testPattern)
    }
  }
}

/** A value's problem as the API words it: "must be a number", "must be 3 to 20 characters: … (pattern …)". */
function problemClause(problem: FieldValueProblem, field: CheckedField): string {
  switch (problem.rule) {
    case 'boolean':
      return 'must be true or false'
    case 'number':
      return 'must be a number'
    case 'text':
      return 'must be text'
    case 'unsafe':
      return 'cannot be checked: the catalog pattern took too long to evaluate'
    case 'option':
      return `must be one of: ${problem.options.map((o) => JSON.stringify(o.value)).join(', ')}`
    case 'spec':
      return problem.clause
    case 'too-long':
      return `must be at most ${problem.max} characters`
    case 'pattern':
      return patternSentence(field, problem.pattern)
  }
}

/**
 * A value's problem as a form says it under the field: a pattern the user missed in words (the
 * field's own message, else the pattern explained, else its description: `patternMessage`), any
 * other rule the API's clause as a sentence ("Must be a number").
 */
export function problemSentence(
  problem: FieldValueProblem,
  field: CheckedField & { label: string; description?: string; message?: string },
): string {
  if (problem.rule === 'pattern') return patternMessage(field, problem.pattern)
  return asSentence(problemClause(problem, field))
}

/** An API clause as a sentence under a field: "must be a number" -> "Must be a number". */
export const asSentence = (clause: string) => clause.charAt(0).toUpperCase() + clause.slice(1)

/** Why a value does not fit a catalog field, or null when it does (the API's words). */
export function valueProblem(ref: FieldRef, value: unknown, testPattern: PatternTest): string | null {
  const specRule = ref.service === undefined ? SPEC_RULES[ref.key] : undefined
  const problem = fieldValueProblem(ref.field, value, testPattern, specRule)
  return problem && problemClause(problem, ref.field)
}

/**
 * A value that does not match its pattern, in words (the regex only as a detail): the
 * pattern explained ("must be a whole number of 1 or more"), else the default as an example.
 */
function patternSentence(field: CheckedField, pattern: string): string {
  const rule = explainPattern(pattern)
  if (rule) return `must be ${rule} (pattern ${pattern})`
  const example = (typeof field.default === 'string' && field.default !== '') || typeof field.default === 'number'
  return `is not in the expected form${example ? `, like ${JSON.stringify(field.default)}` : ''} (pattern ${pattern})`
}

function patternProblem(field: CheckedField, text: string, testPattern: PatternTest): FieldValueProblem | null {
  if (!field.pattern) return null
  if (text.length > VALUE_MAX_LENGTH) return { rule: 'too-long', max: VALUE_MAX_LENGTH }
  switch (testPattern(field.pattern, text)) {
    case 'match':
    case 'uncompilable': // like the wizard: a pattern that does not compile drops only this check
      return null
    case 'unsafe':
      return { rule: 'unsafe' }
    default:
      return { rule: 'pattern', pattern: field.pattern }
  }
}
