// Reads the fields of one clause of a request (request-reading.ts cuts the request into clauses):
// the services a clause names, "set … to …", a range laid on a field relation, a quantity under a
// field's unit or bound, and the value each field found takes from the clause; every value is checked
// against its field before it is proposed, and what cannot be proposed is said with the reason.
import type { Catalog } from './catalog-source.ts'
import { fieldAt, type FieldRef } from '@ies/processor-lib/contract/fields'
import { searchCatalog, type Hit } from './catalog-search.ts'
import { labelOf, Proposals, show, type Value } from './proposals.ts'
import { boundOf, convert, digitsForWords, quantitiesOf, rangeOf, readQuantity, takesQuantity, unitOf } from './quantities.ts'
import { readPlace } from './aws-words.ts'

export const NEGATION = /\b(no|not|without|disable|disabled|remove|turn off|switch off|drop|don'?t|never|off)\b/
const SET = /\b(?:set|change|make|use|put)\s+(?:the\s+)?(.+?)\s+(?:to|=|as|at)\s+("[^"]*"|'[^']*'|\S+)/i
export const REGION = /\b[a-z]{2}(?:-[a-z]+)+-\d\b/
export const RANGE = /\b(?:between\s+)?(\d+(?:\.\d+)?)\s*(?:and|to|-|–|\.\.)\s*(\d+(?:\.\d+)?)\b/
const NUMBER = /(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])/g

/** For each word of a text, the services whose names (service, field or option titles) carry it. */
function titleServices(catalog: Catalog, text: string): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>()
  for (const h of searchCatalog(catalog, text, { titleOnly: true }))
    for (const t of h.queryTerms) map.set(t, (map.get(t) ?? new Set()).add(h.service))
  return map
}

/**
 * The services a clause names: a word of their key or display name, or a word of their description
 * that at most two services share ("queue", "postgres"; not "cluster" or "private"). Among services
 * named by the same words, the best is taken and the others are alternatives.
 */
export function servicesNamed(catalog: Catalog, clause: string): { named: Hit[]; alternatives: Hit[] } {
  const hits = searchCatalog(catalog, clause, { kinds: ['service'] })
  const inTitles = titleServices(catalog, clause)
  const sharing = new Map<string, number>()
  for (const h of hits) for (const t of h.queryTerms) sharing.set(t, (sharing.get(t) ?? 0) + 1)
  const distinctive = (h: Hit, t: string) => (sharing.get(t) ?? 0) <= 2 && [...(inTitles.get(t) ?? [])].every((s) => s === h.service)
  const named: Hit[] = []
  const alternatives: Hit[] = []
  const groups = new Set<string>()
  for (const h of hits) {
    const terms = h.named ? h.queryTerms : h.queryTerms.filter((t) => distinctive(h, t))
    if (terms.length === 0) continue
    const group = [...terms].sort().join(' ')
    if (groups.has(group)) alternatives.push(h)
    else {
      groups.add(group)
      named.push({ ...h, queryTerms: terms })
    }
  }
  // A service named by only some of the words that name another ("serverless postgres": RDS by
  // "postgres", Lambda by "serverless", Aurora by both) is the other's alternative.
  const covers = (a: Hit, b: Hit) =>
    a !== b && b.queryTerms.length < a.queryTerms.length && b.queryTerms.every((t) => a.queryTerms.includes(t))
  const subsumed = named.filter((b) => named.some((a) => covers(a, b)))
  return { named: named.filter((h) => !subsumed.includes(h)), alternatives: [...alternatives, ...subsumed] }
}

/** The value a field gets from a clause, or the reason there is none. */
function valueFromClause(
  ref: FieldRef,
  clause: string,
  hits: Hit[],
  inverted: boolean,
): { value: Value; says?: string } | { missing: string; always?: boolean } {
  const negated = NEGATION.test(clause)
  const { field } = ref
  if (field.type === 'toggle') return { value: negated === inverted }
  const quantity = readQuantity(ref, clause)
  if (quantity) return { value: quantity.value, says: quantity.says }
  // A quantity of another kind ("3 days" for a size in GiB) is not this field's number.
  if (field.unit && unitOf(field.unit) && quantitiesOf(clause).length > 0) return { missing: `a quantity in ${field.unit}`, always: true }
  const numbers = [...clause.matchAll(NUMBER)].map((m) => Number(m[1]))
  if (field.type === 'dropdown') {
    // Several options named ("node 22": Node.js 20 and Node.js 22): the one whose value or label has the clause's number.
    const named = hits.filter((h) => h.kind === 'option' && h.path === ref.path && h.value !== undefined)
    const label = (v: unknown) => `${String(v)} ${field.options?.find((o) => o.value === v)?.label ?? ''}`
    const option = named.find((h) => numbers.some((n) => new RegExp(`(^|\\D)${n}(\\D|$)`).test(label(h.value)))) ?? named[0]
    if (option?.value !== undefined) return { value: option.value }
    const byText = field.options?.find((o) => numbers.includes(Number(o.value)) || clause.includes(String(o.value).toLowerCase()))
    if (byText) return { value: byText.value }
    return { missing: `one of ${field.options?.map((o) => o.label).join(', ')}` }
  }
  if (field.type === 'number') {
    if (numbers.length > 0) return { value: numbers[0] }
    if (!negated && /\b(enable|turn on|on|keep|add)\b/.test(clause) && typeof field.default === 'number') return { value: field.default }
    return { missing: 'a number' }
  }
  const quoted = /"([^"]*)"|'([^']*)'/.exec(clause)
  if (quoted) return { value: quoted[1] ?? quoted[2] }
  return { missing: 'a value ("set … to …")' }
}

/** A value typed for the field from the text after "to" ("set region to eu-central-1"). */
function typedValue(ref: FieldRef, raw: string): Value {
  const quoted = /^(["'])(.*)\1$/.exec(raw)
  const text = quoted ? quoted[2] : raw.replace(/[.,;!?]+$/, '')
  const { field } = ref
  if (field.type === 'toggle')
    return /^(true|yes|on|enabled?)$/i.test(text) ? true : /^(false|no|off|disabled?)$/i.test(text) ? false : text
  if (field.type === 'number') return text !== '' && Number.isFinite(Number(text)) ? Number(text) : text
  if (field.type === 'dropdown') {
    const option = field.options?.find(
      (o) => String(o.value).toLowerCase() === text.toLowerCase() || o.label.toLowerCase() === text.toLowerCase(),
    )
    return option ? option.value : text
  }
  return text
}

/** The lower and upper field of a relation pair among the hits ("nodes 3 to 6": minimum and maximum). */
function relationPair(catalog: Catalog, service: string, hits: Hit[]): [FieldRef, FieldRef] | undefined {
  const fields = catalog.services[service]?.fields ?? {}
  const touched = new Set(hits.filter((h) => h.service === service).map((h) => h.path))
  for (const [key, f] of Object.entries(fields)) {
    const upper = f.atMost && Object.hasOwn(fields, f.atMost) ? f.atMost : undefined
    const lowerBound = f.atLeast && Object.hasOwn(fields, f.atLeast)
    if (!upper || lowerBound) continue
    const lowerPath = `services.${service}.${key}`
    const upperPath = `services.${service}.${upper}`
    if (!touched.has(lowerPath) && !touched.has(upperPath)) continue
    const lower = fieldAt(catalog, lowerPath)
    const top = fieldAt(catalog, upperPath)
    if (lower && top) return [lower, top]
  }
  return undefined
}

/** "set … to …": the field the subject names (globals included), with the value typed for it. True when read. */
export function readSet(catalog: Catalog, asWritten: string, context: () => string[], out: Proposals): boolean {
  // The value keeps its case (a topic name); the subject is read in lower case.
  const set = SET.exec(asWritten)
  if (!set) return false
  const subject = set[1].toLowerCase()
  const scope = [...servicesNamed(catalog, subject).named.map((h) => h.service), ...context()]
  const target = searchCatalog(catalog, subject, { kinds: ['field'], services: scope.length > 0 ? ['', ...scope] : undefined })
  const best = target.find((h) => h.named)
  const ref = best?.path ? fieldAt(catalog, best.path) : null
  if (!ref) return false
  // What follows "to" as a whole: a place for the region ("N. Virginia"), a quantity for a field with a unit ("4 days").
  const said = asWritten.slice(set.index + set[0].length - set[2].length)
  if (ref.path === 'region' && !REGION.test(set[2]) && readPlace(catalog, said, out)) return true
  const quantity = readQuantity(ref, digitsForWords(said.toLowerCase()))
  const value = quantity?.value ?? typedValue(ref, set[2])
  out.add(ref.path, value, `You asked for ${labelOf(catalog, ref)} = ${show(value)}${quantity ? `: ${quantity.says}` : ''}`, quantity?.says)
  if (ref.service) out.enable(ref.service, ref.field.displayName)
  return true
}

/** A range laid on a declared relation ("3 to 6 nodes": Minimum 3, Maximum 6). The paths set, if any. */
export function readRange(catalog: Catalog, clause: string, scope: string[], fieldHits: Hit[], out: Proposals): string[] {
  const range = RANGE.exec(clause)
  const quantities = rangeOf(clause)
  if (!range && !quantities) return []
  for (const service of scope) {
    const pair = relationPair(catalog, service, fieldHits)
    if (!pair) continue
    // "between 100 GB and 1 TB" in the pair's unit; else the numbers as written.
    const unit = unitOf(pair[0].field.unit)
    const sides = quantities && unit ? quantities.map((q) => convert(q, unit)) : null
    const converted = sides && sides[0] !== null && sides[1] !== null ? (sides as number[]) : null
    if (!converted && !range) continue
    const [lo, hi] = (converted ?? [Number(range![1]), Number(range![2])]).sort((a, b) => a - b)
    const asked = converted ? `${quantities![0].text} to ${quantities![1].text} = ${lo} to ${hi} ${pair[0].field.unit}` : `${lo} to ${hi}`
    const reason = `You asked for ${asked}: ${pair[0].field.displayName} ${lo}, ${pair[1].field.displayName} ${hi}`
    out.add(pair[0].path, lo, reason)
    out.add(pair[1].path, hi, reason)
    out.enable(service)
    return [pair[0].path, pair[1].path]
  }
  return []
}

/**
 * With a quantity in the clause ("4 days", "2 GiB"), the fields whose declared unit can take it come
 * first; when the clause names none of them, the one field of the services in view that can is
 * taken ("lambda with 2 GB"), and several are asked about.
 */
function byQuantity(catalog: Catalog, clause: string, scope: string[], fieldHits: Hit[], out: Proposals): Hit[] {
  if (quantitiesOf(clause).length === 0) return fieldHits
  const takes = (path: string | undefined) => {
    const ref = path ? fieldAt(catalog, path) : null
    return ref !== null && takesQuantity(ref, clause)
  }
  const takers = fieldHits.filter((h) => h.kind === 'field' && takes(h.path))
  if (takers.length > 0) return takers
  if (scope.length === 0) return fieldHits
  const candidates = scope.flatMap((service) =>
    Object.entries(catalog.services[service]?.fields ?? {}).flatMap(([key, f]) =>
      f.available !== false && takes(`services.${service}.${key}`) ? [`services.${service}.${key}`] : [],
    ),
  )
  if (candidates.length === 1) {
    const service = candidates[0].split('.')[1]
    return [{ kind: 'field', service, path: candidates[0], score: 1, queryTerms: [], named: true, exact: true }]
  }
  if (candidates.length > 1 && fieldHits.length === 0)
    out.notes.push(`"${clause.trim()}" fits ${candidates.map((p) => `\`${p}\``).join(', ')}: say which.`)
  return fieldHits
}

/**
 * A bound on a count with no unit ("at least 3 nodes", "no more than 5 nodes") names the lower or the
 * upper side of a declared relation among the fields the clause names.
 */
function byBound(catalog: Catalog, clause: string, fieldHits: Hit[]): Hit[] {
  const bound = boundOf(clause)
  const best = fieldHits[0]
  if (bound === 'exactly' || !best || best.kind !== 'field' || quantitiesOf(clause).length > 0) return fieldHits
  const pair = relationPair(catalog, best.service, fieldHits)
  if (!pair) return fieldHits
  const side = bound === 'atLeast' ? pair[0] : pair[1]
  return [{ ...best, path: side.path, score: best.score }]
}

/** The same field of the other services in view, named as well ("keep backups for a month" with RDS and Aurora on). */
function twinsOf(fieldHits: Hit[], ref: FieldRef): Hit[] {
  const best = fieldHits[0]
  return fieldHits.filter(
    (h) => h.kind === 'field' && h.service !== best.service && h.path?.endsWith(`.${ref.key}`) && h.score >= best.score * 0.9,
  )
}

/**
 * The one field (or option) the clause names best, with its value from the clause. Ambiguity is said,
 * not guessed: several services' fields with no service in view, or several number fields alike. The
 * path read, if any (a field named beside its service without a value reads nothing: the service is on).
 */
export function readField(
  catalog: Catalog,
  clause: string,
  scope: string[],
  named: Hit[],
  fieldHits: Hit[],
  inverted: Set<string>,
  out: Proposals,
) {
  fieldHits = byBound(catalog, clause, byQuantity(catalog, clause, scope, fieldHits, out))
  const best = fieldHits[0]
  const ref = best?.path ? fieldAt(catalog, best.path) : null
  if (!ref) return undefined
  const inTitles = titleServices(catalog, [clause, ...inverted].join(' '))
  if (scope.length === 0 && !best.queryTerms.some((t) => inTitles.get(t)?.size === 1)) {
    const options = [...new Set(fieldHits.filter((h) => h.score >= best.score * 0.5).map((h) => h.path!))].slice(0, 6)
    out.notes.push(`"${clause.trim()}" fits several fields: ${options.map((p) => `\`${p}\``).join(', ')}. Name the service too.`)
    return undefined
  }
  const rivals = fieldHits.filter(
    (h) => h.path !== best.path && h.kind === 'field' && best.kind === 'field' && h.score >= best.score * 0.9 && h.service === best.service,
  )
  if (rivals.length > 0 && ref.field.type === 'number') {
    const which = [best, ...rivals].map((h) => `${fieldAt(catalog, h.path!)?.field.displayName} (\`${h.path}\`)`).join(', ')
    out.notes.push(`"${clause.trim()}" fits ${which}: say which.`)
    return ref.path
  }
  const read = valueFromClause(
    ref,
    clause,
    fieldHits,
    best.queryTerms.some((t) => inverted.has(t)),
  )
  const serviceNamed = named.some((h) => h.service === ref.service)
  if ('missing' in read) {
    if (serviceNamed && !read.always) return undefined
    out.notes.push(`${labelOf(catalog, ref)} (\`${ref.path}\`) needs ${read.missing}; tell me the value.`)
    return ref.path
  }
  for (const hit of [best, ...twinsOf(fieldHits, ref)]) {
    const target = hit === best ? ref : fieldAt(catalog, hit.path!)!
    const value =
      hit === best
        ? read
        : valueFromClause(
            target,
            clause,
            fieldHits,
            best.queryTerms.some((t) => inverted.has(t)),
          )
    if ('missing' in value) continue
    const shown = target.field.type === 'toggle' ? (value.value ? 'on' : 'off') : `= ${show(value.value)}`
    const why = value.says ?? target.field.description
    out.add(target.path, value.value, `${labelOf(catalog, target)} ${shown}${why ? `: ${why}` : ''}`, value.says)
  }
  if (ref.service) out.enable(ref.service, serviceNamed ? undefined : ref.field.displayName)
  return ref.path
}
