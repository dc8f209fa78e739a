// How a client reads the catalog document's attributes. The document carries them as the template
// decorators wrote them (template decorators, rule 8): `options` as strict JSON, every other
// attribute a string (`type: "slider"`, `default: "3"`, `available: "false"`), and the extractor
// judges none of them. So the clients interpret, and this is the one reading both use: the wizard
// (desktop/src/renderer/lib/catalog/), the CI guard's consistency check (desktop/src/catalog/guard.ts) and the server's
// typed view (view.ts: the environment checks and the assistant). Pure: no DOM, no Node.
//   - an unknown `type` is coerced to `text`, with a warning (client consumption rule 3);
//   - a `default` is read for its widget: "3" -> 3 for a number, "true"/"false" -> a boolean for a
//     toggle, the matching option's own value for a dropdown, text for text;
//   - `available: "false"` hides a service or a field.
// Typed values (a default taken from the template's own value, the generated enable toggle's
// `false`, an older or hand-written document) are read the same way.

import { FIELD_TYPES, type CatalogOption, type FieldType } from './document.ts'

export { FIELD_TYPES }
export type { CatalogOption, FieldType }

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Rule 3: the widget of a raw `type`. Absent is `text`; a value that is not a known type is `text` too, and `unknown` says so. */
export function widgetOf(type: unknown): { type: FieldType; unknown?: true } {
  if (type === undefined) return { type: 'text' }
  if (typeof type === 'string' && (FIELD_TYPES as readonly string[]).includes(type)) return { type: type as FieldType }
  return { type: 'text', unknown: true }
}

/** A non-empty JSON list of `{ value, label }` (what a dropdown can offer). */
export function isOptionList(v: unknown): v is CatalogOption[] {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((o) => isObject(o) && ['string', 'number', 'boolean'].includes(typeof o.value) && typeof o.label === 'string')
  )
}

/** `available` hides a service or a field when it is `"false"` (an attribute is a string) or `false`. */
export function isHidden(available: unknown): boolean {
  return available === 'false' || available === false
}

/** Why an `available` value is neither true nor false (it then hides nothing), or null. */
export function availableProblem(available: unknown): string | null {
  return available === undefined || available === true || available === false || available === 'true' || available === 'false'
    ? null
    : `available ${JSON.stringify(available)} is neither true nor false`
}

const NUMBER_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/

export type ReadDefault = { value: unknown } | { problem: string }

/**
 * A catalog default as its widget holds it: `toggle` a boolean (from `true`/`false` or
 * `"true"`/`"false"`), `number` a number (from a number or its decimal text; `""` is no default),
 * `dropdown` the matching option's own value (`"3"` selects the option whose value is 3), `text` a
 * string (a number or boolean written as text). Absent or null is no default (null).
 */
export function readDefault(type: FieldType, raw: unknown, options?: CatalogOption[]): ReadDefault {
  if (raw === undefined || raw === null) return { value: null }
  const shown = JSON.stringify(raw)
  switch (type) {
    case 'toggle':
      if (typeof raw === 'boolean') return { value: raw }
      if (raw === 'true' || raw === 'false') return { value: raw === 'true' }
      return { problem: `default ${shown} is not true or false` }
    case 'number':
      if (typeof raw === 'number' && Number.isFinite(raw)) return { value: raw }
      if (raw === '') return { value: null }
      if (typeof raw === 'string' && NUMBER_TEXT.test(raw.trim())) return { value: Number(raw.trim()) }
      return { problem: `default ${shown} is not a number` }
    case 'dropdown': {
      const list = options ?? []
      const hit = list.find((o) => o.value === raw) ?? (isScalar(raw) ? list.find((o) => String(o.value) === String(raw)) : undefined)
      return hit ? { value: hit.value } : { problem: `default ${shown} is not one of the options` }
    }
    default:
      if (typeof raw === 'string') return { value: raw }
      if (typeof raw === 'number' || typeof raw === 'boolean') return { value: String(raw) }
      return { value: raw }
  }
}

const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
