// The service catalog document (spec "Service catalog document"): the one definition of its types.
// The extractor (../catalog.ts) produces it; the API serves it; the wizard, the CLI, the environment
// checks and the assistant read it (attributes.ts, view.ts). Types only, plus the widget list: no
// Node, no DOM, so the desktop's browser bundle imports it as it is.
import type { FindingCode } from '../findings.ts'

/**
 * The widgets a client knows. The extractor does not enforce them: `type` is carried as written and
 * a client coerces an unknown type to `text` (client consumption rule 3).
 */
export const FIELD_TYPES = ['text', 'toggle', 'dropdown', 'number'] as const
export type FieldType = (typeof FIELD_TYPES)[number]

export interface CatalogOption {
  value: string | number | boolean
  label: string
}

/**
 * One field. Attribute values are what the decorator wrote (rule 8): `options` parsed as strict JSON
 * (its shape is not checked: a list of {value, label} is what a client can use), every other
 * attribute a string — `type: "slider"`, `default: "3"`, `available: "false"` — and clients
 * interpret them (attributes.ts). Without a `type` attribute the type is inferred; without a `default`
 * attribute the default is the template's own value below the decorator (a JSON value) or null.
 */
export interface CatalogField {
  displayName: string
  description?: string
  type: FieldType | (string & {})
  options?: CatalogOption[]
  pattern?: string
  default: unknown
  available?: string
  category?: string
  /** A sentence a client shows when the value does not match `pattern`, when a document carries one (else the pattern is explained). */
  message?: string
  /** Field relations (relations.ts): the value is at least / at most a number or another field's value. */
  atLeast?: string
  atMost?: string
  /** The unit of a number (or a dropdown of numbers) as written (`unit=s`, `unit=days`, `unit=GiB`): what a quantity the user writes is converted to. */
  unit?: string
  /** Comma-separated words users say for the field (`synonyms=survive, keep messages`), as written. */
  synonyms?: string
}

export interface CatalogService {
  displayName: string
  /** The @module's `description`: what the service is, shown by the wizard under its name. */
  description?: string
  category?: string
  /** The @module's `available` attribute as written; `"false"` hides the service (a client's rule). */
  available?: string
  /** Comma-separated words users say for the service (`synonyms=postgres, database`), as written. */
  synonyms?: string
  /** The environment diagram (diagram.ts): the node's kind, the service it is drawn inside, its lines to other services, as written. */
  diagram?: string
  within?: string
  connects?: string
  fields: Record<string, CatalogField>
}

/** One extraction error. `line` is 1-based (0 for the file as a whole); `path` is the decorator path or null. */
export interface CatalogError {
  code: FindingCode | 'MISSING_PARAMS_FILE'
  file: string
  line: number
  path: string | null
  message: string
}

export interface Catalog {
  schemaVersion: 1
  commit: string
  global: { fields: Record<string, CatalogField> }
  services: Record<string, CatalogService>
  errors: CatalogError[]
}
