// The values an environment write sets, checked against the service catalog (README.md beside this
// file, "Catalog check"). The catalog is the one GET /api/catalog serves, through the same cache
// (plugins/catalog, `app.catalog.view`), and it is read the one way every client reads it: the typed
// view of the catalog contract (processor-lib/src/contract/view.ts over attributes.ts: an unknown type is
// text, a dropdown without options is text) and the rule set the assistant shares, the contract's fields.ts
// (`valueProblem`: toggle a boolean, number a finite number whose decimal text matches the pattern,
// dropdown exactly one option value, text a string matching the pattern; patterns tested only through
// server/src/core/safe-pattern.ts). Nothing here restates those rules.
//
// - Values are read as the client sent them, before the schema's type coercion: `"3"` is not 3.
// - A create checks every value it sets; a merge patch only the values it sets that differ from the
//   stored ones (`null` removes, it is no value), so an environment stored under an older catalog
//   stays editable, also by a client that sends its unchanged values back.
// - Only `aws` environments are checked: the catalog is the AWS stack's. A patch that makes an
//   environment `aws` checks all its values.
// - A service key or a field the catalog does not know is stored and generates nothing (spec,
//   "Environment"): no error. Hidden (`available: false`) services and fields are still checked.
// - `services.<key>.enabled` must be a JSON boolean, always (also without a catalog).
// - A pattern that cannot be tested in bounded time drops only that pattern check (as the wizard does).
// - No usable catalog (unreachable, refused, a schemaVersion other than 1): the values are accepted
//   and a warning is logged; the write does not fail.
// - A body over the size caps of limits.ts (services, fields, charts) is refused before any value is
//   walked; everything here is linear in the number of values (withoutOverlap included).
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { validationError, type FieldError } from '@ies/server/core/errors'
import { GLOBAL_KEYS, valueProblem, type FieldRef } from '@ies/processor-lib/contract/fields'
import type { TypedCatalog as Catalog, TypedField as CatalogField } from '@ies/processor-lib/contract/view'
import { testPattern } from '@ies/server/core/safe-pattern'
import { relationProblems } from '@ies/processor-lib/contract/relations'
import { sizeProblems } from './limits.ts'

/** The provider whose stack the catalog describes. */
export const CATALOG_PROVIDER = 'aws'

/** One value a request sets: a global field (`domain`) or a service field (`services.eks.nodeMinSize`). */
export interface SetValue {
  path: string
  /** Undefined for a global field. */
  service?: string
  key: string
  value: unknown
}

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const own = (o: unknown, key: string): unknown => (isObject(o) && Object.hasOwn(o, key) ? o[key] : undefined)

/** Type-strict equality of stored values (scalars and lists of scalars); anything else differs. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i])
}

/**
 * The values a body sets. With `stored` (a merge patch): `null` (a removal) and values equal to the
 * stored ones are left out.
 */
export function valuesSet(body: unknown, stored?: Json): SetValue[] {
  if (!isObject(body)) return []
  const keep = (value: unknown, before: unknown) => value !== undefined && !(stored && (value === null || same(value, before)))
  const values: SetValue[] = []
  for (const key of GLOBAL_KEYS) {
    const value = own(body, key)
    // A global field's null is the schema's to judge (`domain: null` is "no domain", stored as "").
    if (value !== null && keep(value, own(stored, key))) values.push({ path: key, key, value })
  }
  const services = own(body, 'services')
  if (!isObject(services)) return values
  for (const [service, fields] of Object.entries(services)) {
    if (!isObject(fields)) continue
    const before = own(own(stored, 'services'), service)
    for (const [key, value] of Object.entries(fields)) {
      if (keep(value, own(before, key))) values.push({ path: `services.${service}.${key}`, service, key, value })
    }
  }
  return values
}

/** The catalog field a value is for, hidden or not, or null when the catalog does not know it. */
function catalogField(catalog: Catalog, v: SetValue): CatalogField | null {
  if (v.service === undefined) return (own(catalog.global.fields, v.key) as CatalogField | undefined) ?? null
  const service = own(catalog.services, v.service) as Catalog['services'][string] | undefined
  return (own(service?.fields, v.key) as CatalogField | undefined) ?? null
}

/**
 * What is wrong with `values`: `enabled` must be a boolean; with a catalog, every value of a field
 * the catalog knows must pass it. `onUnsafe` hears of a pattern that could not be tested.
 */
export function catalogProblems(catalog: Catalog | null, values: SetValue[], onUnsafe?: (path: string) => void): FieldError[] {
  const problems: FieldError[] = []
  for (const v of values) {
    if (v.service !== undefined && v.key === 'enabled') {
      if (typeof v.value !== 'boolean') problems.push({ field: v.path, message: 'must be true or false' })
      continue
    }
    const field = catalog && catalogField(catalog, v)
    if (!field) continue
    const ref: FieldRef = { path: v.path, key: v.key, field, ...(v.service !== undefined && { service: v.service }) }
    let problem = valueProblem(ref, v.value, testPattern)
    if (problem && field.pattern && testPattern(field.pattern, '') === 'unsafe') {
      // The pattern cannot be tested in bounded time: like the wizard, drop only the pattern check.
      onUnsafe?.(v.path)
      const { pattern: _unsafe, ...withoutPattern } = field
      problem = valueProblem({ ...ref, field: withoutPattern }, v.value, testPattern)
    }
    if (problem) problems.push({ field: v.path, message: problem })
  }
  return problems
}

/**
 * The relations between fields (the catalog contract's relations.ts: `atLeast` / `atMost`) that the
 * environment `doc` breaks. With `touched` (an update), only those involving a value the request set
 * (either side, or the service's `enabled`): a stored environment that predates a relation is not
 * refused for a change elsewhere. A relation one of whose fields has a value problem (`reported`) is
 * left out: that field's value is wrong already, and saying so once is clearer.
 */
export function relationFindings(catalog: Catalog, doc: unknown, touched?: SetValue[], reported: FieldError[] = []): FieldError[] {
  if (!isObject(doc)) return []
  const values = { ...doc, services: isObject(doc.services) ? (doc.services as Record<string, Json>) : {} }
  const set = touched && new Set(touched.map((v) => (v.key === 'enabled' && v.service !== undefined ? `services.${v.service}` : v.path)))
  const involved = (path: string) => !set || set.has(path) || set.has(path.split('.').slice(0, 2).join('.'))
  const wrong = new Set(reported.map((r) => r.field))
  return relationProblems(catalog, values)
    .filter((p) => !wrong.has(p.field) && !(p.other !== undefined && wrong.has(p.other)))
    .filter((p) => involved(p.field) || (p.other !== undefined && involved(p.other)))
    .map((p) => ({ field: p.field, message: p.message }))
}

/** Every dotted prefix of a path, the path included: `a.b.c` -> `a`, `a.b`, `a.b.c`. */
function prefixes(path: string): string[] {
  const out: string[] = []
  for (let i = path.indexOf('.'); i !== -1; i = path.indexOf('.', i + 1)) out.push(path.slice(0, i))
  out.push(path)
  return out
}

/**
 * `extra` without the fields `first` already reports (the same field, or one inside the other).
 * Linear in the total length of the paths: two sets, not a comparison of every pair (quadratic in
 * the number of errors, which a large bad request makes large).
 */
export function withoutOverlap(first: FieldError[], extra: FieldError[]): FieldError[] {
  const reported = new Set(first.map((f) => f.field))
  const insideReported = new Set(first.flatMap((f) => prefixes(f.field)))
  return extra.filter((e) => !insideReported.has(e.field) && !prefixes(e.field).some((p) => reported.has(p)))
}

/**
 * What the catalog refuses in an environment document: the value problems of `values` (by default
 * every value the document holds), then the relations it breaks between fields without one (with
 * `touched`, only those involving a value set). One rule for writes and for stored environments.
 */
export function documentProblems(
  catalog: Catalog,
  doc: unknown,
  values: SetValue[] = valuesSet(doc),
  touched?: SetValue[],
  onUnsafe?: (path: string) => void,
): FieldError[] {
  const problems = catalogProblems(catalog, values, onUnsafe)
  return [...problems, ...withoutOverlap(problems, relationFindings(catalog, doc, touched, problems))]
}

/**
 * The problems of a stored environment under the current catalog (a stranded environment: stored
 * under an older catalog whose values this one refuses); none for a provider the catalog does not describe.
 */
export function storedProblems(catalog: Catalog | null, doc: { provider?: unknown }): FieldError[] {
  if (!catalog || doc.provider !== CATALOG_PROVIDER) return []
  return documentProblems(catalog, doc)
}

export interface CatalogCheck {
  /**
   * The typed view of the current catalog (`app.catalog.view`), or null (logged) when there is no usable one. Read it
   * before taking the owner's write lock: fetching it may wait for the processor.
   */
  current(log: FastifyBaseLogger): Promise<Catalog | null>
  /** The problems of a create body (as sent, before the schema coerces it). */
  create(body: unknown, catalog: Catalog | null, log: FastifyBaseLogger): FieldError[]
  /** The problems of a merge patch (as sent) on `stored`; `merged` is the patched document, before the schema coerces it. */
  update(patch: unknown, stored: Json, merged: unknown, catalog: Catalog | null, log: FastifyBaseLogger): FieldError[]
}

/** A body over the size caps (limits.ts) is refused before anything walks it value by value. */
function refuseOversize(body: unknown): void {
  const problems = sizeProblems(body)
  if (problems.length > 0) throw validationError(problems)
}

/** What the environment routes log when they have no catalog to check against. */
const NO_CATALOG = {
  unavailable: 'environments: catalog unavailable; service values accepted without the catalog check',
  otherVersion: 'environments: the catalog is not a schemaVersion 1 document; service values accepted without the catalog check',
}

export function catalogCheckFor(app: FastifyInstance): CatalogCheck {
  const catalog = app.catalog
  const current = (log: FastifyBaseLogger) => catalog.view(log, NO_CATALOG)

  /** `catalog` is null for a provider the catalog does not describe, or when there is none: then only `enabled` is checked. */
  const unsafeLogger = (log: FastifyBaseLogger) => (path: string) =>
    log.warn({ path }, 'environments: the catalog pattern cannot be tested in bounded time; only its pattern check is dropped')

  /** The value problems, then the relations the values break (on fields without a value problem). */
  function judge(values: SetValue[], catalog: Catalog | null, doc: unknown, log: FastifyBaseLogger, touched?: SetValue[]): FieldError[] {
    if (!catalog) return catalogProblems(null, values)
    return documentProblems(catalog, doc, values, touched, unsafeLogger(log))
  }

  return {
    current,
    create(body, catalog, log) {
      refuseOversize(body)
      return judge(valuesSet(body), own(body, 'provider') === CATALOG_PROVIDER ? catalog : null, body, log)
    },
    update(patch, stored, merged, catalog, log) {
      refuseOversize(merged)
      const isAws = own(merged, 'provider') === CATALOG_PROVIDER
      // Becoming an AWS environment: every value is new to the catalog.
      if (isAws && stored.provider !== CATALOG_PROVIDER) return judge(valuesSet(merged), catalog, merged, log)
      const changed = valuesSet(patch, stored)
      return judge(changed, isAws ? catalog : null, merged, log, changed)
    },
  }
}
