// The typed reading of the catalog document, for the server's environment checks and the assistant. The document carries decorator attributes as the
// templates wrote them (template decorators, rule 8): `type: "slider"`, `default: "3"`,
// `available: "false"`. Like the wizard, the assistant is a client and interprets them (client
// consumption rules), with the same reading (attributes.ts):
//   - an unknown `type` is coerced to `text`, with a warning (rule 3); so is a dropdown without a
//     list of {value, label} options;
//   - a `default` becomes the value its widget holds ("3" -> 3, "true" -> true, a dropdown's option
//     value); one that cannot be read is no default (null), with a warning;
//   - `available` becomes a boolean: "false" (or false) hides the service or field.
// Everything downstream (fields.ts, the environment checks, the built-in assistant, the prompt, the
// suggestion gate) works on this typed view, never on the raw document.
import type { Catalog as CatalogDocument, CatalogOption, FieldType } from './document.ts'
import { availableProblem, isHidden, isOptionList, readDefault, widgetOf } from './attributes.ts'

export interface TypedField {
  displayName: string
  description?: string
  type: FieldType
  options?: CatalogOption[]
  pattern?: string
  /** The default as the widget holds it (typed), or null. */
  default: unknown
  /** False when the document hides the field (`available: "false"`). */
  available: boolean
  /** Field relations as written (relations.ts reads them). */
  atLeast?: string
  atMost?: string
  /** The unit of the value as written (`s`, `days`, `GiB`). */
  unit?: string
  /** Words users say for the field, from the comma-separated attribute. */
  synonyms?: string[]
}

export interface TypedService {
  displayName: string
  /** Words users say for the service, from the comma-separated attribute. */
  synonyms?: string[]
  category?: string
  description?: string
  /** False when the document hides the service. */
  available: boolean
  fields: Record<string, TypedField>
}

export interface TypedCatalog {
  schemaVersion: number
  commit: string
  global: { fields: Record<string, TypedField> }
  services: Record<string, TypedService>
}

export interface CatalogView {
  catalog: TypedCatalog
  /** What was adjusted, one sentence each (`services.x.y: unknown type "slider" is treated as text`). */
  warnings: string[]
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
/** A comma-separated attribute as its non-empty items, or undefined. */
const list = (v: unknown): string[] | undefined => {
  const items = (text(v) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return items.length > 0 ? items : undefined
}

function readField(key: string, raw: Record<string, unknown>, where: string, warnings: string[]): TypedField {
  const widget = widgetOf(raw.type)
  if (widget.unknown) warnings.push(`${where}: unknown type ${JSON.stringify(raw.type)} is treated as text`)
  let type = widget.type
  let options: CatalogOption[] | undefined
  if (type === 'dropdown') {
    if (isOptionList(raw.options)) options = raw.options
    else {
      warnings.push(`${where}: a dropdown without a list of {value, label} options is treated as text`)
      type = 'text'
    }
  }
  const read = readDefault(type, raw.default, options)
  if ('problem' in read) warnings.push(`${where}: ${read.problem}; no default is offered`)
  const odd = availableProblem(raw.available)
  if (odd) warnings.push(`${where}: ${odd}; the field is offered`)
  const field: TypedField = {
    displayName: text(raw.displayName) || key,
    type,
    default: 'value' in read ? read.value : null,
    available: !isHidden(raw.available),
  }
  const description = text(raw.description)
  if (description) field.description = description
  if (options) field.options = options
  const pattern = text(raw.pattern)
  if (pattern !== undefined) field.pattern = pattern
  const atLeast = text(raw.atLeast)
  if (atLeast !== undefined) field.atLeast = atLeast
  const atMost = text(raw.atMost)
  if (atMost !== undefined) field.atMost = atMost
  const unit = text(raw.unit)?.trim()
  if (unit) field.unit = unit
  const synonyms = list(raw.synonyms)
  if (synonyms) field.synonyms = synonyms
  return field
}

/** Keyed entries as a plain object; `Object.fromEntries` keeps a `__proto__` key an ordinary entry. */
function mapEntries<T>(obj: unknown, fn: (key: string, value: Record<string, unknown>) => T): Record<string, T> {
  if (!isObject(obj)) return {}
  return Object.fromEntries(Object.entries(obj).flatMap(([k, v]) => (isObject(v) ? [[k, fn(k, v)]] : [])))
}

/** The typed view of a catalog document, and what had to be adjusted to build it. */
export function catalogView(doc: CatalogDocument): CatalogView {
  const warnings: string[] = []
  const catalog: TypedCatalog = {
    schemaVersion: doc.schemaVersion,
    commit: doc.commit,
    global: { fields: mapEntries(doc.global?.fields, (k, f) => readField(k, f, k, warnings)) },
    services: mapEntries(doc.services, (key, s) => {
      const odd = availableProblem(s.available)
      if (odd) warnings.push(`services.${key}: ${odd}; the service is offered`)
      const service: TypedService = {
        displayName: text(s.displayName) || key,
        available: !isHidden(s.available),
        fields: mapEntries(s.fields, (k, f) => readField(k, f, `services.${key}.${k}`, warnings)),
      }
      const category = text(s.category)
      if (category !== undefined) service.category = category
      const description = text(s.description)
      if (description !== undefined) service.description = description
      const synonyms = list(s.synonyms)
      if (synonyms) service.synonyms = synonyms
      return service
    }),
  }
  return { catalog, warnings }
}
