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
// cannot be proposed is said, with the reason, instead of silently left out. The reading of one
// clause's fields is field-reading.ts.
import type { Catalog } from './catalog-source.ts'
import { fieldAt } from '@ies/processor-lib/contract/fields'
import { relationProblems } from '@ies/processor-lib/contract/relations'
import { normalizeTerm, searchCatalog } from './catalog-search.ts'
import { valueAt, type Draft } from './draft.ts'
import { labelOf, Proposals, serviceLabel, type Proposal, type Value } from './proposals.ts'
import { digitsForWords } from './quantities.ts'
import { inCatalogWords } from './vocabulary.ts'
import { readFamily, readPlace } from './aws-words.ts'
import { missingForStack } from './draft-review.ts'
import { riskReview } from './risk-review.ts'
import { NEGATION, RANGE, readField, readRange, readSet, REGION, servicesNamed } from './field-reading.ts'

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

const ANTONYMS: Record<string, string> = { private: 'public', internal: 'public', single: 'multi' }
const PRODUCTION = /\b(production|prod|highly available|high availability|ha|resilient|fault tolerant)\b/
const HARDENED = /\b(secure|security|hardened|locked down|best practices?|safe)\b/
const INSTEAD = /\binstead\b/
const FAMILY_TERMS = new Set(['graviton', 'x86', 'arm64', 'x86_64'])
const DOMAIN = /\b((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63})\b/
const EMAIL = /\b[^@\s]+@[^@\s]+\.[a-z]{2,}\b/
const ABOUT_DOMAIN = /\b(domain|dns|route ?53|hostname|host name)\b/

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
