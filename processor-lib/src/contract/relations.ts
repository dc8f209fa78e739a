// Relations between fields, declared once next to the values in the templates as two decorator
// attributes a number field may carry (docs/template-authors.md, "Field relations"):
//   atLeast=<bound>   the value must be >= the bound
//   atMost=<bound>    the value must be <= the bound
// A bound is a number (`atMost=35`) or another field: a key of the same service (`atMost=nodeMaxSize`),
// or a full path (`services.eks.nodeMaxSize`, a global key). Like every attribute they are strings in
// the document (template decorators, rule 8); this module reads them. The API (environment writes),
// the wizard and the assistant's draft check call `relationProblems`, so they judge alike; the author
// lint calls `relationDeclarationProblems`.
//
// A relation is checked when the service is enabled and both sides have a number (the value set, or
// else the field's default: the template's value applies when a field is left out).

/** The members of a field this module reads (the document's fields, the typed view's and the wizard's all have them). */
export interface RelationField {
  displayName?: string
  type?: unknown
  default?: unknown
  atLeast?: unknown
  atMost?: unknown
}

export interface RelationCatalog {
  global?: { fields?: Record<string, RelationField> }
  services?: Record<string, { fields?: Record<string, RelationField> }>
}

/** What a draft or an environment holds: global values at the top, service values under `services`. */
export interface RelationValues {
  services?: Record<string, Record<string, unknown> | undefined>
  [global: string]: unknown
}

export const RELATION_ATTRIBUTES = ['atLeast', 'atMost'] as const
export type RelationKind = (typeof RELATION_ATTRIBUTES)[number]

export interface RelationProblem {
  /** The field whose attribute states the relation, e.g. `services.eks.nodeDesiredSize`. */
  field: string
  /** The other field, when the bound is one. */
  other?: string
  /** A sentence fragment after the field's name: `must be at most Maximum nodes (5); it is 10`. */
  message: string
  /** The bound's value, which the field may take to keep the relation (a one-value fix). */
  limit?: number
}

type Bound = { number: number } | { path: string }

const own = <T>(o: Record<string, T> | undefined, key: string): T | undefined => (o && Object.hasOwn(o, key) ? o[key] : undefined)

/** A number from a typed value or a numeric string (the document's attributes are strings). */
function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v)
  return undefined
}

/** A bound as written: a number, or a field path (a bare key is the same service's field). */
function parseBound(raw: unknown, service: string | undefined): Bound | undefined {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined
  const n = numberOf(raw)
  if (n !== undefined) return { number: n }
  const text = raw.trim()
  if (!text.includes('.') && service !== undefined) return { path: `services.${service}.${text}` }
  return { path: text }
}

function fieldAtPath(catalog: RelationCatalog, path: string): RelationField | undefined {
  const parts = path.split('.')
  if (parts.length === 1) return own(catalog.global?.fields, path)
  if (parts.length !== 3 || parts[0] !== 'services') return undefined
  return own(own(catalog.services, parts[1])?.fields, parts[2])
}

function valueAtPath(catalog: RelationCatalog, values: RelationValues, path: string): number | undefined {
  const parts = path.split('.')
  const set = parts.length === 1 ? own(values as Record<string, unknown>, path) : own(own(values.services ?? {}, parts[1]) ?? {}, parts[2])
  return numberOf(set ?? fieldAtPath(catalog, path)?.default)
}

function enabled(values: RelationValues, service: string): boolean {
  return own(own(values.services ?? {}, service) ?? {}, 'enabled') === true
}

interface Declared {
  field: string
  service?: string
  kind: RelationKind
  raw: unknown
  bound: Bound | undefined
}

function declared(catalog: RelationCatalog): Declared[] {
  const out: Declared[] = []
  const visit = (fields: Record<string, RelationField> | undefined, service?: string) => {
    for (const [key, field] of Object.entries(fields ?? {})) {
      for (const kind of RELATION_ATTRIBUTES) {
        if (field[kind] === undefined) continue
        const path = service === undefined ? key : `services.${service}.${key}`
        out.push({ field: path, service, kind, raw: field[kind], bound: parseBound(field[kind], service) })
      }
    }
  }
  visit(catalog.global?.fields)
  for (const [service, entry] of Object.entries(catalog.services ?? {})) visit(entry.fields, service)
  return out
}

const label = (catalog: RelationCatalog, path: string) => fieldAtPath(catalog, path)?.displayName || path

/** Every relation the values break, in catalog order. Disabled services and missing numbers are not judged. */
export function relationProblems(catalog: RelationCatalog, values: RelationValues): RelationProblem[] {
  const problems: RelationProblem[] = []
  for (const r of declared(catalog)) {
    if (!r.bound || (r.service !== undefined && !enabled(values, r.service))) continue
    const value = valueAtPath(catalog, values, r.field)
    if (value === undefined) continue
    const other = 'path' in r.bound ? r.bound.path : undefined
    const limit = 'number' in r.bound ? r.bound.number : valueAtPath(catalog, values, r.bound.path)
    if (limit === undefined) continue
    const broken = r.kind === 'atLeast' ? value < limit : value > limit
    if (!broken) continue
    const words = r.kind === 'atLeast' ? 'at least' : 'at most'
    const bound = other === undefined ? String(limit) : `${label(catalog, other)} (${limit})`
    problems.push({ field: r.field, ...(other !== undefined && { other }), message: `must be ${words} ${bound}; it is ${value}`, limit })
  }
  return problems
}

/**
 * The same broken relation said at its other field (`Maximum nodes` must be at least `Minimum nodes`
 * (10); it is 5), so that a form can show it at both; null when the bound is a number.
 */
export function converseProblem(catalog: RelationCatalog, values: RelationValues, problem: RelationProblem): RelationProblem | null {
  const value = valueAtPath(catalog, values, problem.field)
  if (problem.other === undefined || problem.limit === undefined || value === undefined) return null
  // Broken, so the two differ: the field above its bound broke an atMost, below it an atLeast.
  const words = value > problem.limit ? 'at least' : 'at most'
  return {
    field: problem.other,
    other: problem.field,
    message: `must be ${words} ${label(catalog, problem.field)} (${value}); it is ${problem.limit}`,
    limit: value,
  }
}

/** What is wrong with the declarations themselves (the author lint): a bound that names no number field. */
export function relationDeclarationProblems(catalog: RelationCatalog): RelationProblem[] {
  const problems: RelationProblem[] = []
  for (const r of declared(catalog)) {
    const self = fieldAtPath(catalog, r.field)
    if (self?.type !== undefined && self.type !== 'number') {
      problems.push({ field: r.field, message: `${r.kind} is for number fields; this field's type is ${String(self.type)}` })
    }
    if (!r.bound) {
      problems.push({ field: r.field, message: `${r.kind}=${String(r.raw)} is neither a number nor a field` })
      continue
    }
    if ('path' in r.bound) {
      const target = fieldAtPath(catalog, r.bound.path)
      if (!target)
        problems.push({
          field: r.field,
          other: r.bound.path,
          message: `${r.kind} names ${r.bound.path}, which is not a field of the catalog`,
        })
      else if (target.type !== undefined && target.type !== 'number') {
        problems.push({ field: r.field, other: r.bound.path, message: `${r.kind} names ${r.bound.path}, which is not a number field` })
      }
    }
  }
  return problems
}
