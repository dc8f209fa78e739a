/**
 * The catalog extractor: scans the provider's one parameter-values file (rule 13) and builds the
 * service catalog document (spec "Service catalog document"). Reading it from a templates
 * directory: extract-catalog.ts.
 */
import { findValueLine, parseAttributes, scanDecorators, type Decorator } from './decorators.ts'
import type { Language } from './languages.ts'
import { parseLiteral, splitValue } from './values.ts'
import type { Catalog, CatalogError, CatalogField, CatalogService } from './contract/document.ts'

/** The `@module` attributes of the environment diagram (contract/diagram.ts), carried as written. */
const DIAGRAM_ATTRIBUTES = ['diagram', 'within', 'connects'] as const

/** The parameter-values file each provider's catalog is extracted from, relative to the templates root. */
export const DEFAULT_PARAMS_FILES: Readonly<Record<string, string>> = Object.freeze({
  aws: 'terraform/terraform.tfvars',
})

export { FIELD_TYPES } from './contract/document.ts'
export type { Catalog, CatalogError, CatalogField, CatalogOption, CatalogService, FieldType } from './contract/document.ts'

/** Build the document from the parameter-values file's text (pure; used by extractCatalog and tests). */
export function buildCatalog(file: string, text: string, lang: Language, commit: string): Catalog {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
  // Keys come from template paths (`[\w.-]+`, so `__proto__` and `constructor` are possible): keyed
  // objects are built without a prototype, so such a key is an ordinary entry, and turned into
  // plain objects (with that key as an own property) at the end.
  const dict = <T>(): Record<string, T> => Object.create(null)
  const catalog: Catalog = { schemaVersion: 1, commit, global: { fields: dict() }, services: dict(), errors: [] }
  const err = (code: CatalogError['code'], d: Decorator | null, message: string) =>
    catalog.errors.push({ code, file, line: d ? d.index + 1 : 0, path: d?.path || null, message })
  const fieldsSeenFor = new Map<string, Decorator>()

  const ensureService = (key: string, d: Decorator): CatalogService => {
    if (!fieldsSeenFor.has(`param:${key}`)) fieldsSeenFor.set(`param:${key}`, d)
    return (catalog.services[key] ??= { displayName: key, fields: dict() })
  }

  for (const d of scanDecorators(lines, lang)) {
    if (d.kind === 'section') continue
    if (d.error) {
      err(d.path ? 'BAD_ATTRIBUTE' : 'BAD_DECORATOR', d, d.error)
      if (d.kind === 'param' && serviceKeyOf(d.path)) ensureService(serviceKeyOf(d.path)!, d)
      continue
    }
    const segs = d.path.split('.')
    const attrs = parseAttributes(d.tail)
    for (const e of attrs.errors) err(e.code, d, `@${d.kind} ${d.path}: ${e.message}`)

    if (d.kind === 'module') {
      if (segs.length !== 2 || segs[0] !== 'services' || !segs[1]) {
        err('BAD_PATH', d, `@module ${d.path}: a module path is services.<key>`)
        continue
      }
      const svc = ensureService(segs[1], d)
      // Attribute keys the document has no place for are ignored (neither kept nor reported: rule 8
      // reports only three attribute failures).
      const a = attrs.attrs
      if (a.displayName) svc.displayName = a.displayName
      if (a.description !== undefined) svc.description = a.description
      if (a.category !== undefined) svc.category = a.category
      if (a.available !== undefined) svc.available = a.available
      if (a.synonyms !== undefined) svc.synonyms = a.synonyms
      for (const k of DIAGRAM_ATTRIBUTES) if (a[k] !== undefined) svc[k] = a[k]
      fieldsSeenFor.set(`module:${segs[1]}`, d)
      continue
    }

    // @param
    const isGlobal = segs.length === 1 && segs[0] !== ''
    const isService = segs.length === 3 && segs[0] === 'services' && segs[1] !== '' && segs[2] !== ''
    if (!isGlobal && !isService) {
      err('BAD_PATH', d, `@param ${d.path}: a parameter path is <field> or services.<key>.<field>`)
      if (segs[0] === 'services' && segs[1]) ensureService(segs[1], d)
      continue
    }
    const target = isGlobal ? catalog.global.fields : ensureService(segs[1], d).fields
    if (attrs.errors.length > 0) continue
    const templateValue = templateValueOf(lines, d, lang)
    const field = buildField(d, attrs.attrs, attrs.options, templateValue)
    const leaf = segs[segs.length - 1]
    if (!Object.hasOwn(target, leaf)) target[leaf] = field
  }

  for (const [key, svc] of Object.entries(catalog.services)) {
    if (!fieldsSeenFor.has(`module:${key}`)) {
      const d = fieldsSeenFor.get(`param:${key}`) ?? null
      err('UNDECLARED_SERVICE', d, `service "${key}" has fields but no @module services.${key}`)
    }
    const defaultToggle: CatalogField = { displayName: 'Enabled', type: 'toggle', default: false }
    const { enabled = defaultToggle, ...rest } = svc.fields
    catalog.services[key] = Object.assign(
      { displayName: svc.displayName },
      svc.description !== undefined ? { description: svc.description } : {},
      svc.category !== undefined ? { category: svc.category } : {},
      svc.available !== undefined ? { available: svc.available } : {},
      svc.synonyms !== undefined ? { synonyms: svc.synonyms } : {},
      ...DIAGRAM_ATTRIBUTES.map((k) => (svc[k] !== undefined ? { [k]: svc[k] } : {})),
      { fields: { enabled, ...rest } },
    ) as CatalogService
  }
  catalog.global.fields = Object.fromEntries(Object.entries(catalog.global.fields))
  catalog.services = Object.fromEntries(Object.entries(catalog.services))
  catalog.errors.sort((a, b) => a.line - b.line)
  return catalog
}

function serviceKeyOf(path: string): string | null {
  const segs = path.split('.')
  return segs[0] === 'services' && segs[1] ? segs[1] : null
}

/** The template's value below the decorator (its working default), or undefined when none. */
function templateValueOf(lines: readonly string[], d: Decorator, lang: Language): unknown {
  const t = findValueLine(lines, d.index, lang)
  if ('reason' in t) return undefined
  const parts = splitValue(lines[t.index].slice(t.match.length), lang)
  if (parts.multiline) return undefined
  return parseLiteral(parts.value, lang.id)
}

/**
 * A field from a decorator whose attributes parsed without failure. Nothing here is reported:
 * attribute values are carried as written (strings; `options` as its JSON), and unknown attribute
 * keys are ignored.
 */
function buildField(d: Decorator, a: Record<string, string>, options: unknown, templateValue: unknown): CatalogField {
  let type: string
  if (a.type !== undefined) type = a.type
  else if (a.options !== undefined) type = 'dropdown'
  else if (typeof templateValue === 'boolean') type = 'toggle'
  else if (typeof templateValue === 'number') type = 'number'
  else type = 'text'
  const def = a.default !== undefined ? a.default : templateValue === undefined ? null : templateValue
  // a stable key order: displayName, description, type, options, pattern, default, available, category,
  // then the field relations (contract/relations.ts), then unit and synonyms (what the assistant reads)
  return Object.assign(
    {},
    { displayName: a.displayName || d.path.split('.').pop()! },
    a.description !== undefined ? { description: a.description } : {},
    { type },
    a.options !== undefined ? { options } : {},
    a.pattern !== undefined ? { pattern: a.pattern } : {},
    { default: def },
    a.available !== undefined ? { available: a.available } : {},
    a.category !== undefined ? { category: a.category } : {},
    a.atLeast !== undefined ? { atLeast: a.atLeast } : {},
    a.atMost !== undefined ? { atMost: a.atMost } : {},
    a.unit !== undefined ? { unit: a.unit } : {},
    a.synonyms !== undefined ? { synonyms: a.synonyms } : {},
  ) as CatalogField
}
