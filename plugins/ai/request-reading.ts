// Reads a request ("I need a private EKS cluster with Postgres, 3 to 6 nodes") into proposed values,
// grounded in the live catalog: the request is cut into clauses, and each clause's services, fields
// and dropdown options are found by text retrieval over the catalog (catalog-search.ts). A value comes
// from the clause (a number, a quantity converted to the field's unit under its bound (quantities.ts),
// a range laid on a field relation, an option, "no"/"without", "private" for a "public" toggle); a
// place gives the region and Graviton/x86 a processor family (aws-words.ts), AWS's words are said as
// the catalog says them first (vocabulary.ts), and a clause that matched nothing is reported. The
// services a proposal needs come from the draft review (a network for
// EKS, a WAF for CloudFront), the other side of a relation from the relations; "production" adds the
// fixes of the production risk rules. Every proposal is checked against its field here, so what
// cannot be proposed is said, with the reason, instead of silently left out.
import type { Catalog } from './catalog-source.ts'
import { fieldAt, type FieldRef } from '@ies/processor-lib/contract/fields'
import { relationProblems } from '@ies/processor-lib/contract/relations'
import { normalizeTerm, searchCatalog, type Hit } from './catalog-search.ts'
import { valueAt, type Draft } from './draft.ts'
import { labelOf, Proposals, serviceLabel, show, type Proposal, type Value } from './proposals.ts'
import { boundOf, convert, digitsForWords, quantitiesOf, rangeOf, readQuantity, takesQuantity, unitOf } from './quantities.ts'
import { inCatalogWords } from './vocabulary.ts'
import { readFamily, readPlace } from './aws-words.ts'
import { missingForStack } from './draft-review.ts'
import { riskReview } from './risk-review.ts'

export type { Proposal, Value } from './proposals.ts'

export interface Reading {
  proposals: Proposal[]
  /** What could not be proposed and why, or what the user has to choose between. */
  notes: string[]
  /** The services the request named, best first (the context of a follow-up). */
  services: string[]
}

export interface ReadingContext {
  /** Services of the conversation so far, for a clause that names none ("make it multi-AZ"); asked for only then. */
  context: () => string[]
  /** The conversation asks for production. */
  production: boolean
}

const NEGATION = /\b(no|not|without|disable|disabled|remove|turn off|switch off|drop|don'?t|never|off)\b/
const ANTONYMS: Record<string, string> = { private: 'public', internal: 'public', single: 'multi' }
const PRODUCTION = /\b(production|prod|highly available|high availability|ha|resilient|fault tolerant)\b/
const HARDENED = /\b(secure|security|hardened|locked down|best practices?|safe)\b/
const INSTEAD = /\binstead\b/
const FAMILY_TERMS = new Set(['graviton', 'x86', 'arm64', 'x86_64'])
const SET = /\b(?:set|change|make|use|put)\s+(?:the\s+)?(.+?)\s+(?:to|=|as|at)\s+("[^"]*"|'[^']*'|\S+)/i
const REGION = /\b[a-z]{2}(?:-[a-z]+)+-\d\b/
const DOMAIN = /\b((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63})\b/
const EMAIL = /\b[^@\s]+@[^@\s]+\.[a-z]{2,}\b/
const ABOUT_DOMAIN = /\b(domain|dns|route ?53|hostname|host name)\b/
const RANGE = /\b(?:between\s+)?(\d+(?:\.\d+)?)\s*(?:and|to|-|–|\.\.)\s*(\d+(?:\.\d+)?)\b/
const NUMBER = /(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])/g
/**
 * A request is read up to these bounds (a real one has a few clauses of a few words): the reading runs
 * on the event loop, and each clause costs a few retrieval searches (test/security/event-loop.test.ts
 * sends 40 messages of 8,000 characters).
 */
export const MAX_CLAUSES = 12
export const MAX_CLAUSE_LENGTH = 200
const CLAUSES = /\s*(?:[,;]|\.\s|\band\b|\bwith\b|\bplus\b|\balso\b|\bbut\b|\bthen\b)\s*/

/** Terms of a text as the index sees them. */
const termsOf = (text: string) => text.split(/[^a-z0-9.-]+/).flatMap((w) => normalizeTerm(w) ?? [])

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
function servicesNamed(catalog: Catalog, clause: string): { named: Hit[]; alternatives: Hit[] } {
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
function readSet(catalog: Catalog, asWritten: string, context: () => string[], out: Proposals): boolean {
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
function readRange(catalog: Catalog, clause: string, scope: string[], fieldHits: Hit[], out: Proposals): string[] {
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
function readField(
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

/** One clause: "set … to …", a region or domain, the services it names, a range or a field, and the services' own state. */
function readClause(catalog: Catalog, asWritten: string, context: () => string[], out: Proposals, namedOut: string[]): boolean {
  if (readSet(catalog, asWritten, context, out)) return true
  const said = out.list.length + out.notes.length
  const clause = inCatalogWords(asWritten.toLowerCase())
  const region = REGION.exec(clause)
  if (region && fieldAt(catalog, 'region')) out.add('region', region[0], `You asked for region ${region[0]}`)
  const place = !region && readPlace(catalog, clause, out)
  const domain = ABOUT_DOMAIN.test(clause) ? DOMAIN.exec(clause) : null
  if (domain && fieldAt(catalog, 'domain')) out.add('domain', domain[1], `You asked for the domain ${domain[1]}`)

  const { named, alternatives } = servicesNamed(catalog, clause)
  for (const alt of alternatives) {
    const pick = named.find((h) => h.queryTerms.some((t) => alt.queryTerms.includes(t)))
    const about = catalog.services[alt.service].description
    const said = clause.split(/[^a-z0-9-]+/).filter((w) => pick?.queryTerms.some((t) => w.startsWith(t)))
    if (pick && catalog.services[pick.service].category === catalog.services[alt.service].category)
      out.notes.push(
        `I read "${said.join(' ') || clause.trim()}" as ${serviceLabel(catalog, pick.service)}; ${serviceLabel(catalog, alt.service)} (\`services.${alt.service}\`) is the alternative${about ? `: ${about}` : ''}.`,
      )
  }
  // A place with no service named is only the region ("move everything to Frankfurt", not CloudFront's "Europe" price class).
  if (place && named.length === 0) return true
  const scope = named.length > 0 ? named.map((h) => h.service) : context()
  // An e-mail address goes to the text field of the services in view whose pattern takes one.
  const email = EMAIL.exec(asWritten)
  if (email) {
    for (const service of scope) {
      const key = Object.entries(catalog.services[service]?.fields ?? {}).find(
        ([, f]) => f.type === 'text' && f.pattern?.includes('@'),
      )?.[0]
      const ref = key ? fieldAt(catalog, `services.${service}.${key}`) : null
      if (ref) {
        out.add(ref.path, email[0], `${labelOf(catalog, ref)}: ${email[0]}${ref.field.description ? ` (${ref.field.description})` : ''}`)
        out.enable(service)
        break
      }
    }
  }

  // Words with an opposite in field names ("private" for a "public" toggle) are searched as that word, inverted.
  const inverted = new Set(termsOf(clause).flatMap((w) => (ANTONYMS[w] ? [ANTONYMS[w]] : [])))
  const used = new Set(named.flatMap((h) => h.queryTerms))
  const fieldHits = searchCatalog(catalog, [clause, ...inverted].join(' '), {
    kinds: ['field', 'option'],
    services: scope.length > 0 ? scope : undefined,
  }).filter(
    // An option is named by its words as written ("spot"), not by a prefix ("node" is not "nodejs20.x").
    (h) => h.named && (h.kind !== 'option' || h.exact) && h.queryTerms.some((t) => !used.has(t)),
  )
  // A processor family ("graviton", "x86") is read across the services; the clause's other words still name options ("spot graviton nodes").
  const family = readFamily(catalog, clause, scope, out)
  const rest = family
    ? fieldHits.filter((h) => h.kind === 'option' && !family.includes(h.path!) && h.queryTerms.some((t) => !FAMILY_TERMS.has(t)))
    : fieldHits
  const ranged = family ?? readRange(catalog, clause, scope, fieldHits, out)
  const read = ranged.length > 0 && !family ? [] : [readField(catalog, clause, scope, named, rest, inverted, out)].flatMap((p) => p ?? [])
  const chosen = [...ranged, ...read]

  // A service named with no field of it chosen is turned on (or off with "no", "without", "disable").
  const negated = NEGATION.test(clause)
  for (const h of named) {
    if (chosen.some((p) => p.startsWith(`services.${h.service}.`))) continue
    const s = catalog.services[h.service]
    if (negated) out.add(`services.${h.service}.enabled`, false, `You asked to turn ${s.displayName} off`)
    else out.enable(h.service)
    if (!negated && INSTEAD.test(clause)) {
      for (const other of context()) {
        if (other !== h.service && catalog.services[other]?.category === s.category)
          out.add(`services.${other}.enabled`, false, `Replaced by ${s.displayName}`)
      }
    }
  }
  for (const h of named) if (!namedOut.includes(h.service)) namedOut.push(h.service)
  return named.length > 0 || chosen.length > 0 || out.list.length + out.notes.length > said
}

/** Words that ask for nothing ("thanks", "everything"): a clause of only these is not reported as unread. */
const FILLER =
  /^(thanks?|thx|hi|hello|hey|ok|okay|everything|stuff|things?|cool|great|now|too|asap|right|away|soon|pls|plz|yes|sure|go|ahead)$/

/** The words of a clause that could have asked for something. */
const contentWords = (clause: string) => termsOf(clause.toLowerCase()).filter((w) => !FILLER.test(w) && !/^\d/.test(w))

/** The clauses of a text, within the reading's bounds on their length (not on their number). */
function clausesOf(text: string): string[] {
  return text
    .split(CLAUSES)
    .filter((c) => c.trim() !== '')
    .map((c) => c.slice(0, MAX_CLAUSE_LENGTH))
}

/** Services a text names (for the context of a follow-up), from its first clauses. */
export function servicesOf(catalog: Catalog, text: string): string[] {
  return clausesOf(text.toLowerCase())
    .slice(0, MAX_CLAUSES)
    .flatMap((clause) => servicesNamed(catalog, clause).named.map((h) => h.service))
}

/** True when a text asks for production. */
export const asksProduction = (text: string) => PRODUCTION.test(text.toLowerCase())

/** What a request asks to change, grounded in the catalog and the draft. */
export function readRequest(catalog: Catalog, request: string, draft: Draft | undefined, { context, production }: ReadingContext): Reading {
  // The conversation's services are looked up only when a clause names none (a few retrieval searches per earlier message).
  let earlier: string[] | undefined
  const conversation = () => (earlier ??= context())
  const out = new Proposals(catalog, draft)
  const named: string[] = []
  // Numbers in words as digits ("two weeks"), and "between 1 day and 2 weeks" kept one phrase.
  // AWS's "N. Virginia" is not the end of a sentence.
  const text = digitsForWords(request.replace(/\s+/g, ' ').replace(/\bN\.\s+(?=virginia|california)/gi, 'Northern ')).replace(
    /\bbetween\s+([^,;]{1,40}?)\s+and\s+/gi,
    'between $1 to ',
  )
  // A range is one phrase ("between 3 and 6"): keep it whole before cutting at "and".
  const all = clausesOf(text.replace(new RegExp(RANGE.source, 'g'), (_m, a: string, b: string) => `${a}..${b}`))
  const clauses = all.slice(0, MAX_CLAUSES)
  if (all.length > clauses.length) out.notes.push(`Your message has ${all.length} parts; I read the first ${MAX_CLAUSES}.`)
  const unread: string[] = []
  for (const clause of clauses) {
    const read = readClause(
      catalog,
      clause.replace(/(\d)\.\.(\d)/, '$1 to $2'),
      () => (named.length > 0 ? named : conversation()),
      out,
      named,
    )
    const general = PRODUCTION.test(clause.toLowerCase()) || HARDENED.test(clause.toLowerCase())
    if (!read && !general && contentWords(clause).length > 0) unread.push(clause.trim())
  }

  // What the proposals need: a network for EKS and the databases, a WAF for CloudFront.
  const asked = new Set(out.list.map((p) => p.path))
  for (const need of asked.size > 0 ? missingForStack(catalog, out.projected()) : []) {
    if (need.severity !== 'info' && need.path !== undefined && need.fix?.path.endsWith('.enabled'))
      out.add(need.fix.path, need.fix.value as Value, need.fix.reason)
  }
  // "production", "highly available" in this request: the production risk rules' fixes; "secure",
  // "best practices": the others'. A risky value the request asks for itself is proposed, with the risk said.
  const lower = text.toLowerCase()
  if (PRODUCTION.test(lower) || HARDENED.test(lower)) {
    for (const risk of riskReview(catalog, out.projected(), production || PRODUCTION.test(lower)))
      if (risk.fix && !asked.has(risk.fix.path)) out.add(risk.fix.path, risk.fix.value as Value, risk.fix.reason)
  }
  for (const risk of riskReview(catalog, out.projected(), production))
    if (risk.path && asked.has(risk.path)) out.notes.push(`Mind the risk: ${risk.message}`)
  if (out.list.length > 0) keepRelations(catalog, out)
  // What matched nothing is said, when the rest of the request was read (a request that matched
  // nothing at all is answered as a question).
  if (unread.length > 0 && (out.list.length > 0 || out.notes.length > 0))
    out.notes.push(
      `I did not act on ${unread.map((c) => `"${c}"`).join(', ')}: nothing in the catalog matches ${unread.length === 1 ? 'it' : 'them'}.`,
    )
  // Services first: what is turned on, then its settings.
  const first = (p: Proposal) => (p.path.endsWith('.enabled') ? 0 : 1)
  return { proposals: [...out.list].sort((a, b) => first(a) - first(b)), notes: out.notes, services: named }
}

/**
 * The other side of a relation a proposal breaks: asking for 10 minimum nodes with 5 as the maximum
 * proposes 10 as the maximum too; asking for a maximum below the initial count lowers the initial count.
 */
function keepRelations(catalog: Catalog, out: Proposals) {
  const projected = out.projected()
  for (const p of relationProblems(catalog, { ...projected, services: projected.services ?? {} })) {
    if (p.limit === undefined) continue
    const asked = out.has(p.field)
    // Only what the request touches; the draft's own contradictions are "check my draft"'s.
    const service = p.field.split('.')[1]
    if (!asked && !(p.other && out.has(p.other)) && !out.has(`services.${service}.enabled`)) continue
    if (asked && p.other && !out.has(p.other)) {
      const value = valueAt(projected, p.field)
      const ref = fieldAt(catalog, p.other)
      if (ref && typeof value === 'number')
        out.add(
          p.other,
          value,
          `${ref.field.displayName} moves to ${value} with it: ${fieldAt(catalog, p.field)?.field.displayName} ${p.message.replace(/; it is .*$/, '')}`,
        )
    } else if (!asked) {
      const ref = fieldAt(catalog, p.field)
      if (ref) out.add(p.field, p.limit, `${ref.field.displayName} ${p.message.replace(/; it is .*$/, '')}`)
    } else {
      // A bound the request itself breaks (35 days at most, or both sides asked): said, not proposed.
      const name = fieldAt(catalog, p.field)?.field.displayName ?? p.field
      out.notes.push(`I cannot set ${name}: it ${p.message}${p.other && out.has(p.other) ? ' (both values are yours: choose again)' : ''}.`)
      out.remove(p.field)
    }
  }
}
