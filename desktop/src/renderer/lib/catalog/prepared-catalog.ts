// How the wizard consumes the service catalog (spec "Catalog", client consumption rules 1-4).
// Pure functions: the same code runs in the renderer and in the Node tests.
// The document's types and the reading of its attributes are the catalog contract's
// (processor-lib/src/contract: document.ts, attributes.ts), which reads
// them (unknown type -> text, "3" -> 3, "true" -> true, available "false" hides).
import { asSentence, fieldValueProblem, problemSentence, type PatternTest } from '@ies/processor-lib/contract/fields'
import {
  availableProblem,
  isHidden,
  isOptionList,
  readDefault,
  widgetOf,
  type CatalogOption,
  type FieldType,
} from '@ies/processor-lib/contract/attributes'
import { PATTERN_MAX_LENGTH, checkPatternSafety } from '@ies/processor-lib/contract/pattern-safety'
import type { Catalog as CatalogDocument, CatalogField, CatalogService } from '@ies/processor-lib/contract/document'
import { converseProblem, relationProblems, type RelationCatalog } from '@ies/processor-lib/contract/relations'
import { catalogDiagramServices, type DiagramService } from '@ies/processor-lib/contract/diagram'

export const SUPPORTED_SCHEMA_VERSION = 1
export { FIELD_TYPES, availableProblem, isHidden, isOptionList, readDefault, widgetOf } from '@ies/processor-lib/contract/attributes'
export type { CatalogOption, FieldType, ReadDefault } from '@ies/processor-lib/contract/attributes'
export type { CatalogDocument, CatalogField, CatalogService }

/** A field ready for a widget. */
export interface WizardField {
  key: string
  label: string
  description?: string
  type: FieldType
  options?: CatalogOption[]
  /**
   * The compiled pattern; absent when the catalog had none, it did not compile (rule 2) or it could
   * stall the page (catastrophic backtracking, `pattern-safety.ts`), which is treated the same way.
   */
  pattern?: RegExp
  /** The pattern as the catalog wrote it: shown only as a detail under a message in words. */
  rule?: string
  /** The catalog's own message for a value that does not match. */
  message?: string
  default: unknown
  /** Field relations as the catalog wrote them (the contract's relations.ts reads them). */
  atLeast?: string
  atMost?: string
}

export interface WizardService {
  key: string
  label: string
  category: string
  description?: string
  /** The service's own `enabled` field (every service has an enable toggle). */
  enabledDefault: boolean
  fields: WizardField[]
}

export interface PreparedCatalog {
  commit: string
  global: Record<string, WizardField>
  services: WizardService[]
  /** Services grouped by category, in a stable order. */
  groups: { category: string; services: WizardService[] }[]
  /** What the client adjusted (unknown types, defaults it cannot read, patterns that do not compile), for the user and the log. */
  warnings: string[]
  /** Extraction errors reported by the catalog itself. */
  extractionErrors: unknown[]
  /** Every service in the document's order with its diagram attributes (the environment diagram; hidden ones too). */
  diagram: DiagramService[]
}

export class CatalogRejected extends Error {
  override name = 'CatalogRejected'
}

export const OTHER_CATEGORY = 'Other'

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** A templates commit for display: a hex hash (optionally `sha256-` prefixed) cut to 12 digits. */
export function shortCommit(commit: string): string {
  const m = /^([a-z0-9]+-)?([0-9a-f]{13,})$/.exec(commit)
  return m ? `${m[1] ?? ''}${m[2].slice(0, 12)}` : commit
}

export type CheckedPattern = { re: RegExp } | { problem: string }

/**
 * Rule 2: a pattern that does not compile drops only that field's validation. A pattern the browser
 * cannot test in bounded time (it has no way to interrupt a RegExp) is dropped the same way: too
 * long, or catastrophic backtracking by the static check of `pattern-safety.ts`.
 */
export function checkPattern(source: string): CheckedPattern {
  if (source.length > PATTERN_MAX_LENGTH) return { problem: `is longer than ${PATTERN_MAX_LENGTH} characters` }
  let re: RegExp
  try {
    re = new RegExp(`^(?:${source})$`)
  } catch {
    return { problem: 'does not compile' }
  }
  const safety = checkPatternSafety(re.source)
  return safety.safe ? { re } : { problem: `could freeze the page (${safety.reason})` }
}

/** The anchored pattern, or undefined when it does not compile or is unsafe (see checkPattern). */
export function compilePattern(source: string): RegExp | undefined {
  const checked = checkPattern(source)
  return 're' in checked ? checked.re : undefined
}

function prepareField(key: string, raw: Partial<CatalogField>, where: string, warnings: string[]): WizardField {
  const widget = widgetOf(raw.type)
  // Rule 3: an unknown type is coerced to text, with a warning.
  if (widget.unknown) warnings.push(`${where}: unknown type ${JSON.stringify(raw.type)} is shown as a text field`)
  const field: WizardField = { key, label: raw.displayName || key, type: widget.type, default: null }
  if (raw.description) field.description = raw.description
  if (typeof raw.message === 'string' && raw.message.trim()) field.message = raw.message.trim()
  if (typeof raw.atLeast === 'string') field.atLeast = raw.atLeast
  if (typeof raw.atMost === 'string') field.atMost = raw.atMost
  if (field.type === 'dropdown') {
    if (isOptionList(raw.options)) field.options = raw.options
    else {
      warnings.push(`${where}: a dropdown without a list of {value, label} options is shown as a text field`)
      field.type = 'text'
    }
  }
  const read = readDefault(field.type, raw.default, field.options)
  if ('value' in read) field.default = read.value
  else warnings.push(`${where}: ${read.problem}; the field starts empty`)
  if (typeof raw.pattern === 'string' && raw.pattern !== '') {
    const checked = checkPattern(raw.pattern)
    if ('re' in checked) {
      field.pattern = checked.re
      field.rule = raw.pattern
    } else warnings.push(`${where}: pattern "${raw.pattern}" ${checked.problem}; this field is not validated`)
  }
  return field
}

/** Validate the document (rule 4) and turn it into what the wizard renders. */
export function prepareCatalog(doc: unknown): PreparedCatalog {
  if (!isObject(doc)) throw new CatalogRejected('The catalog is not a JSON object')
  if (doc.schemaVersion !== SUPPORTED_SCHEMA_VERSION) {
    throw new CatalogRejected(
      `Unsupported catalog schemaVersion ${JSON.stringify(doc.schemaVersion)} (this client reads version ${SUPPORTED_SCHEMA_VERSION})`,
    )
  }
  if (!isObject(doc.services)) throw new CatalogRejected('The catalog has no services object')
  const warnings: string[] = []
  const global: Record<string, WizardField> = {}
  const globalFields = isObject(doc.global) && isObject(doc.global.fields) ? doc.global.fields : {}
  for (const [key, raw] of Object.entries(globalFields)) {
    if (isObject(raw)) global[key] = prepareField(key, raw as Partial<CatalogField>, `global.${key}`, warnings)
  }
  const services: WizardService[] = []
  const objects = Object.fromEntries(Object.entries(doc.services).filter(([, s]) => isObject(s))) as Record<string, CatalogService>
  for (const [key, rawService] of Object.entries(doc.services)) {
    if (!isObject(rawService)) continue
    const svc = rawService as Partial<CatalogService>
    const odd = availableProblem(svc.available)
    if (odd) warnings.push(`services.${key}: ${odd}; the service is shown`)
    if (isHidden(svc.available)) continue
    const fields: WizardField[] = []
    let enabledDefault = false
    for (const [fieldKey, rawField] of Object.entries(isObject(svc.fields) ? svc.fields : {})) {
      if (!isObject(rawField)) continue
      const where = `services.${key}.${fieldKey}`
      if (fieldKey === 'enabled') {
        const read = readDefault('toggle', rawField.default)
        if ('problem' in read) warnings.push(`${where}: ${read.problem}; the service starts disabled`)
        enabledDefault = 'value' in read && read.value === true
        continue
      }
      const oddField = availableProblem(rawField.available)
      if (oddField) warnings.push(`${where}: ${oddField}; the field is shown`)
      if (isHidden(rawField.available)) continue
      fields.push(prepareField(fieldKey, rawField as Partial<CatalogField>, where, warnings))
    }
    const service: WizardService = {
      key,
      label: svc.displayName || key,
      category: svc.category || OTHER_CATEGORY,
      enabledDefault,
      fields,
    }
    if (svc.description) service.description = svc.description
    services.push(service)
  }
  services.sort((a, b) => a.label.localeCompare(b.label))
  const byCategory = new Map<string, WizardService[]>()
  for (const s of services) byCategory.set(s.category, [...(byCategory.get(s.category) ?? []), s])
  const groups = [...byCategory]
    .sort(([a], [b]) => (a === OTHER_CATEGORY ? 1 : b === OTHER_CATEGORY ? -1 : a.localeCompare(b)))
    .map(([category, list]) => ({ category, services: list }))
  return {
    commit: typeof doc.commit === 'string' ? doc.commit : '',
    global,
    services,
    groups,
    warnings,
    extractionErrors: Array.isArray(doc.errors) ? doc.errors : [],
    diagram: catalogDiagramServices({ services: objects }),
  }
}

/**
 * Rule 1: the service configuration starts empty and is filled in place from the catalog. Values the
 * user (or a stored environment) already has are kept; missing ones take the catalog's default.
 * Returns the same object it was given.
 */
export function fillServices(target: Record<string, Record<string, unknown>>, catalog: PreparedCatalog) {
  for (const service of catalog.services) {
    const values = (target[service.key] ??= {})
    if (!('enabled' in values)) values.enabled = service.enabledDefault
    for (const field of service.fields) {
      if (!(field.key in values)) values[field.key] = field.default
    }
  }
  return target
}

/**
 * The message to show under a field, or null when the value is acceptable: the catalog contract's
 * check (`fieldValueProblem`, the API's rule) in the wizard's words (`problemSentence`). A field left
 * empty shows none: nothing was entered to judge yet. The compiled pattern tests the value (the
 * contract runs it on at most VALUE_MAX_LENGTH characters).
 */
export function validateField(field: WizardField, value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null
  const { pattern } = field
  const test: PatternTest = (_source, text) => (pattern?.test(text) ? 'match' : 'no-match')
  const checked = { ...field, pattern: pattern && field.rule }
  const problem = fieldValueProblem(checked, value, test)
  return problem && problemSentence(problem, checked)
}

/** The prepared catalog's services in the shape the contract's relation check reads. */
function relationCatalogOf(catalog: PreparedCatalog): RelationCatalog {
  return {
    services: Object.fromEntries(
      catalog.services.map((s) => [
        s.key,
        {
          fields: Object.fromEntries(
            s.fields.map((f) => [f.key, { displayName: f.label, type: f.type, default: f.default, atLeast: f.atLeast, atMost: f.atMost }]),
          ),
        },
      ]),
    ),
  }
}

/**
 * Every field error of the enabled services, keyed `services.<key>.<field>` like the server's
 * details: each value against its field, then the relations between fields (the same check the API
 * and the assistant make: `relationProblems` of the catalog contract).
 */
export function validateServices(services: Record<string, Record<string, unknown>>, catalog: PreparedCatalog) {
  const errors: Record<string, string> = {}
  for (const service of catalog.services) {
    const values = services[service.key]
    if (!values || values.enabled !== true) continue
    for (const field of service.fields) {
      const message = validateField(field, values[field.key])
      if (message) errors[`services.${service.key}.${field.key}`] = message
    }
  }
  const valueErrors = new Set(Object.keys(errors))
  const relations = relationCatalogOf(catalog)
  for (const problem of relationProblems(relations, { services })) {
    if (problem.other !== undefined && valueErrors.has(problem.other)) continue // that value is wrong already
    errors[problem.field] ??= asSentence(problem.message)
    // Said at both fields: either one may be the one to change.
    const converse = converseProblem(relations, { services }, problem)
    if (converse) errors[converse.field] ??= asSentence(converse.message)
  }
  return errors
}
