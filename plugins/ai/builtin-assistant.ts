// The built-in assistant: answers from the catalog alone, with no model service. It
//   - reads requests, compound ones and follow-ups, into suggestions that say why (request-reading.ts:
//     "I need a private EKS cluster with Postgres", "make it multi-AZ", "3 to 6 nodes"),
//   - says why a value cannot be proposed ("set region to mars"),
//   - checks the draft: values, relations, risky choices and what a working stack lacks, in one
//     consistent answer ("check my draft", "is it production ready?"),
//   - explains a service or a field (found by text retrieval over the catalog), and why it proposed
//     what it proposed ("why?"),
//   - lists the services, and says what it can do.
import type { Catalog, CatalogField } from './catalog-source.ts'
import { catalogPaths, fieldAt, type FieldRef } from '@ies/processor-lib/contract/fields'
import { searchCatalog } from './catalog-search.ts'
import { valueAt, type Draft } from './draft.ts'
import { checkDraft, missingForStack, type Finding } from './draft-review.ts'
import type { EnvironmentView } from './environment-view.ts'
import { readConversation } from './conversation.ts'
import { MAX_CLAUSE_LENGTH, readRequest, servicesOf, type Reading } from './request-reading.ts'
import { riskReview } from './risk-review.ts'

export interface AssistantInput {
  catalog: Catalog
  /** The conversation so far, oldest first; the last user message is the question. */
  messages: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>
  draft?: Draft
  environment?: EnvironmentView
}

export interface AssistantAnswer {
  content: string
  /** Unchecked proposals; the route passes them through acceptSuggestions. */
  suggestions: Array<{ path: string; value: unknown; reason: string }>
}

const CHECK = /\b(check|validate|valid|review|wrong|errors?|problems?|correct|verify|risks?|risky)\b/
const MISSING = /\b(missing|lack|lacks|ready|complete|working|still need)\b/
const LIST = /\b(services|list|available|offer|catalog)\b/

const QUESTION = /^\s*(what\s+(is|are|does|do)\b(?!.*\bneed)|what's|whats|explain|describe|tell me about)\b/

function describeValue(field: CatalogField): string {
  const parts = [`type ${field.type}`]
  if (field.options)
    parts.push(
      `options ${field.options.map((o) => (o.label === String(o.value) ? JSON.stringify(o.value) : `${JSON.stringify(o.value)} (${o.label})`)).join(', ')}`,
    )
  if (field.pattern) parts.push(`pattern ${field.pattern}`)
  parts.push(`default ${JSON.stringify(field.default)}`)
  return parts.join('; ')
}

function explainField(ref: FieldRef, draft: Draft | undefined, catalog: Catalog): string {
  const owner = ref.service ? `${catalog.services[ref.service].displayName} · ` : ''
  const lines = [`**${owner}${ref.field.displayName}** (\`${ref.path}\`)`]
  if (ref.field.description) lines.push(ref.field.description)
  lines.push(describeValue(ref.field) + '.')
  const current = valueAt(draft, ref.path)
  if (current !== undefined) lines.push(`Your draft has ${JSON.stringify(current)}.`)
  return lines.join('\n')
}

function explainService(key: string, catalog: Catalog, draft: Draft | undefined): string {
  const s = catalog.services[key]
  const state = valueAt(draft, `services.${key}.enabled`) === true ? 'enabled in your draft' : 'not enabled in your draft'
  const lines = [`**${s.displayName}** (\`services.${key}\`${s.category ? `, ${s.category}` : ''}) — ${state}.`, 'Fields:']
  for (const [fieldKey, field] of Object.entries(s.fields)) {
    if (field.available === false) continue
    lines.push(`- \`${fieldKey}\` ${field.displayName}: ${field.description ? field.description + ' ' : ''}(${describeValue(field)})`)
  }
  return lines.join('\n')
}

function listServices(catalog: Catalog, draft: Draft | undefined): string {
  const lines = ['The catalog offers these services:']
  for (const [key, s] of Object.entries(catalog.services)) {
    if (s.available === false) continue
    const on = valueAt(draft, `services.${key}.enabled`) === true ? ' — enabled' : ''
    lines.push(`- \`${key}\` ${s.displayName}${s.category ? ` (${s.category})` : ''}${on}`)
  }
  return lines.join('\n')
}

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/**
 * One answer for the whole review, whose first line agrees with the lists below it: errors (values
 * that are wrong or contradict each other), risky choices, what a working stack lacks, notes.
 */
function renderReview(problems: Finding[], risks: Finding[], missing: Finding[], production: boolean): string {
  const errors = [...problems, ...missing].filter((f) => f.severity === 'error')
  const gaps = missing.filter((f) => f.severity === 'warning')
  const notes = [...problems, ...missing].filter((f) => f.severity !== 'error' && !gaps.includes(f))
  const summary =
    errors.length + risks.length + gaps.length === 0
      ? `No problems found: the draft is valid and I see no risky choice${production ? ' for production' : ''}.`
      : `I found ${[
          errors.length > 0 && count(errors.length, 'error'),
          risks.length > 0 && count(risks.length, `risky choice`),
          gaps.length > 0 && count(gaps.length, 'gap'),
        ]
          .filter(Boolean)
          .join(', ')}${errors.length === 0 ? '; the draft is valid' : ''}.`
  const section = (title: string, list: Finding[]) => (list.length === 0 ? [] : ['', title, ...list.map((f) => `- ${f.message}`)])
  return [
    summary,
    ...section('Errors:', errors),
    ...section(`Risky choices${production ? ' for production' : ''}:`, risks),
    ...section('For a working stack:', gaps),
    ...section('Notes:', notes),
    ...(risks.length > 0 || errors.length > 0 ? ['', 'Apply a suggestion to take its fix.'] : []),
  ].join('\n')
}

const fixesOf = (findings: Finding[]) => findings.flatMap((f) => (f.fix ? [f.fix] : []))

function renderReading(reading: Reading): string {
  const lines: string[] = []
  if (reading.proposals.length > 0) {
    lines.push('Here is what I would change (apply each suggestion, or all of them):')
    for (const p of reading.proposals) lines.push(`- \`${p.path}\` = ${JSON.stringify(p.value)}: ${p.reason}`)
  }
  if (reading.notes.length > 0) lines.push(...(lines.length > 0 ? [''] : []), ...reading.notes)
  return lines.join('\n')
}

const HELP = [
  'I am the built-in configuration assistant; I answer from the service catalog and your draft. Ask me to:',
  '- set things up: "I need a private EKS cluster with Postgres", "3 to 6 spot nodes", "make it production ready",',
  '- follow up: "make it multi-AZ", "use Aurora instead", "why?",',
  '- check your draft: errors, contradictions, risky choices and what is missing ("check my draft"),',
  '- explain a service or a field ("what is msk?", "explain services.eks.nodeCapacityType"),',
  '- list the services ("which services are there?").',
].join('\n')

/** Fields and services a question is about, by retrieval (for explanations). */
function topicsOf(catalog: Catalog, question: string): { fields: FieldRef[]; services: string[] } {
  const byPath = catalogPaths(catalog).filter((r) => r.service !== undefined && question.includes(r.path))
  if (byPath.length > 0) return { fields: byPath, services: [] }
  question = question.toLowerCase().slice(0, MAX_CLAUSE_LENGTH)
  const services = servicesOf(catalog, question)
  const hits = searchCatalog(catalog, question, {
    kinds: ['field'],
    services: services.length > 0 ? ['', ...services] : undefined,
    titleOnly: true,
  })
  const best = hits[0]
  const used = new Set(services.flatMap((s) => [s, ...catalog.services[s].displayName.toLowerCase().split(/\W+/)]))
  const fields = best
    ? hits
        .filter((h) => h.score >= best.score * 0.9 && h.queryTerms.some((t) => !used.has(t)))
        .flatMap((h) => (h.path ? [fieldAt(catalog, h.path)!] : []))
        .filter(Boolean)
    : []
  return { fields, services }
}

export function builtinAssistant({ catalog, messages, draft, environment }: AssistantInput): AssistantAnswer {
  const { question, why, production, context } = readConversation(catalog, messages, draft)
  const text = question.toLowerCase()

  if ((CHECK.test(text) || MISSING.test(text)) && !why) {
    const problems = checkDraft(catalog, draft)
    const risks = riskReview(catalog, draft, production)
    const missing = missingForStack(catalog, draft, environment)
    return { content: renderReview(problems, risks, missing, production), suggestions: fixesOf([...problems, ...risks, ...missing]) }
  }

  const reading = QUESTION.test(text) && !why ? undefined : readRequest(catalog, question, draft, { context, production })
  if (reading && (reading.proposals.length > 0 || reading.notes.length > 0)) {
    if (why) {
      const lines = ['Why I suggested these:']
      for (const p of reading.proposals) {
        const ref = fieldAt(catalog, p.path)
        lines.push(
          `- ${ref ? (ref.service ? `${catalog.services[ref.service].displayName} ${ref.field.displayName}` : ref.field.displayName) : p.path} = ${JSON.stringify(p.value)}: ${p.reason}.`,
        )
      }
      return { content: [...lines, ...reading.notes].join('\n'), suggestions: reading.proposals }
    }
    return { content: renderReading(reading), suggestions: reading.proposals }
  }

  const { fields, services } = topicsOf(catalog, question)
  if (fields.length > 0 && fields.length <= 4) {
    return { content: fields.map((r) => explainField(r, draft, catalog)).join('\n\n'), suggestions: [] }
  }
  if (services.length > 0) {
    return { content: services.map((s) => explainService(s, catalog, draft)).join('\n\n'), suggestions: [] }
  }
  if (fields.length > 4) {
    return {
      content: `Several fields match; name the service too:\n${fields.map((r) => `- \`${r.path}\` ${r.field.displayName}`).join('\n')}`,
      suggestions: [],
    }
  }
  if (LIST.test(text)) return { content: listServices(catalog, draft), suggestions: [] }
  return { content: HELP, suggestions: [] }
}
