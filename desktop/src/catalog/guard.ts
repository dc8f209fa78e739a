// The CI guard of client consumption rule 6: the live catalog (extracted from templates/) against
// the client's static configuration, and the catalog's internal consistency. Type-strict: the
// string "false" differs from the boolean false. Attributes are strings in the document (template
// decorators, rule 8): the static configuration holds them as the extractor writes them
// (`"default": "3"`, `"available": "false"`), and consistency means the client can read every
// attribute without a warning (`readDefault`, `widgetOf` in renderer/lib/catalog/prepared-catalog.ts).
import { checkPattern, compilePattern, isOptionList, readDefault, widgetOf } from '../renderer/lib/catalog/prepared-catalog.ts'

export interface GuardDifference {
  /** e.g. `services.rds.fields.multi_az.default` */
  path: string
  live: unknown
  static: unknown
}

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Type-strict deep equality (no coercion; key order does not matter). */
export function strictEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => strictEqual(x, (b as unknown[])[i]))
  const ka = Object.keys(a as object)
  const kb = Object.keys(b as object)
  return ka.length === kb.length && ka.every((k) => k in (b as object) && strictEqual((a as any)[k], (b as any)[k]))
}

const COMPARED_FIELD_ATTRIBUTES = ['type', 'default', 'available', 'pattern', 'options'] as const
// The diagram attributes too: a static catalog without them draws a different picture of an environment.
const COMPARED_SERVICE_ATTRIBUTES = ['available', 'diagram', 'within', 'connects'] as const

function compareFields(prefix: string, live: Record<string, any>, stat: Record<string, any>, out: GuardDifference[]) {
  for (const key of new Set([...Object.keys(live), ...Object.keys(stat)])) {
    const path = `${prefix}.${key}`
    if (!(key in live) || !(key in stat)) {
      out.push({ path, live: key in live ? 'present' : 'absent', static: key in stat ? 'present' : 'absent' })
      continue
    }
    for (const attr of COMPARED_FIELD_ATTRIBUTES) {
      if (!strictEqual(live[key]?.[attr], stat[key]?.[attr]))
        out.push({ path: `${path}.${attr}`, live: live[key]?.[attr], static: stat[key]?.[attr] })
    }
  }
}

/** Every difference between the two documents on the compared attributes. */
export function compareCatalogs(live: any, stat: any): GuardDifference[] {
  const out: GuardDifference[] = []
  if (!strictEqual(live?.schemaVersion, stat?.schemaVersion))
    out.push({ path: 'schemaVersion', live: live?.schemaVersion, static: stat?.schemaVersion })
  if (!strictEqual(live?.commit, stat?.commit)) out.push({ path: 'commit', live: live?.commit, static: stat?.commit })
  compareFields('global.fields', live?.global?.fields ?? {}, stat?.global?.fields ?? {}, out)
  const ls = live?.services ?? {}
  const ss = stat?.services ?? {}
  for (const key of new Set([...Object.keys(ls), ...Object.keys(ss)])) {
    const path = `services.${key}`
    if (!(key in ls) || !(key in ss)) {
      out.push({ path, live: key in ls ? 'present' : 'absent', static: key in ss ? 'present' : 'absent' })
      continue
    }
    for (const attr of COMPARED_SERVICE_ATTRIBUTES) {
      if (!strictEqual(ls[key][attr], ss[key][attr])) out.push({ path: `${path}.${attr}`, live: ls[key][attr], static: ss[key][attr] })
    }
    compareFields(`${path}.fields`, ls[key].fields ?? {}, ss[key].fields ?? {}, out)
  }
  return out
}

/** An allow-list entry matches a path exactly or as a prefix ending at a dot (`services.vpc` covers `services.vpc.fields.cidr.default`). */
export function isAllowed(path: string, allow: readonly string[]): boolean {
  return allow.some((a) => path === a || path.startsWith(`${a}.`))
}

export function unexpectedDifferences(live: unknown, stat: unknown, allow: readonly string[]) {
  return compareCatalogs(live, stat).filter((d) => !isAllowed(d.path, allow))
}

/** Internal consistency of one catalog document: problems as sentences. */
export function checkConsistency(doc: any): string[] {
  const problems: string[] = []
  if (!isObject(doc)) return ['the catalog is not an object']
  if (doc.schemaVersion !== 1) problems.push(`schemaVersion is ${JSON.stringify(doc.schemaVersion)}, not 1`)
  if (typeof doc.commit !== 'string' || doc.commit === '') problems.push('commit is missing')
  if (!Array.isArray(doc.errors)) problems.push('errors is not an array')
  else if (doc.errors.length > 0) problems.push(`the catalog reports ${doc.errors.length} extraction error(s)`)
  if (!isObject(doc.global?.fields)) problems.push('global.fields is missing')
  if (!isObject(doc.services)) return [...problems, 'services is missing']
  // `available` is a decorator attribute: the strings "true" or "false" (a boolean here would never
  // equal what the extractor writes).
  const checkAvailable = (where: string, v: unknown) => {
    if (v !== undefined && v !== 'true' && v !== 'false') problems.push(`${where}.available is ${JSON.stringify(v)}, not "true" or "false"`)
  }
  const checkField = (where: string, f: any) => {
    if (!isObject(f)) return problems.push(`${where} is not an object`)
    if (typeof f.displayName !== 'string' || f.displayName === '') problems.push(`${where} has no displayName`)
    const widget = widgetOf(f.type)
    if (widget.unknown || f.type === undefined) problems.push(`${where} has unknown type ${JSON.stringify(f.type)}`)
    if (f.pattern !== undefined) {
      const checked = typeof f.pattern === 'string' ? checkPattern(f.pattern) : { problem: 'does not compile' }
      if ('problem' in checked) problems.push(`${where} has a pattern that ${checked.problem}`)
    }
    checkAvailable(where, f.available)
    let type = widget.type
    if (type === 'dropdown') {
      if (!isOptionList(f.options)) {
        problems.push(`${where}: dropdown without a list of {value, label} options`)
        type = 'text'
      }
    } else if (f.options !== undefined) problems.push(`${where}: options on a ${f.type} field`)
    const read = readDefault(type, f.default, isOptionList(f.options) ? f.options : undefined)
    if ('problem' in read) problems.push(`${where}: ${type} ${read.problem}`)
    else if ((type === 'text' || type === 'number') && read.value !== null && read.value !== '' && typeof f.pattern === 'string') {
      // the wizard tests a number's decimal text against the pattern, so its default must pass too
      const text = String(read.value)
      const re = compilePattern(f.pattern)
      if (re && !re.test(text)) problems.push(`${where}: default ${JSON.stringify(text)} does not match its pattern`)
    }
  }
  for (const [k, f] of Object.entries(doc.global?.fields ?? {})) checkField(`global.fields.${k}`, f)
  for (const [key, s] of Object.entries<any>(doc.services)) {
    if (!isObject(s)) {
      problems.push(`services.${key} is not an object`)
      continue
    }
    if (typeof s.displayName !== 'string' || s.displayName === '') problems.push(`services.${key} has no displayName`)
    checkAvailable(`services.${key}`, s.available)
    if (!isObject(s.fields?.enabled) || s.fields.enabled.type !== 'toggle') problems.push(`services.${key} has no enable toggle`)
    for (const [k, f] of Object.entries(s.fields ?? {})) checkField(`services.${key}.fields.${k}`, f)
  }
  return problems
}
