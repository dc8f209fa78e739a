// The built-in assistant: answers from the catalog alone, with no model service. It can
//   - explain a service or a field (mentioned by key, path or display name),
//   - check the draft against the catalog and the spec's rules ("check", "validate", "review"...),
//   - list what a working stack still lacks ("missing", "ready", "complete"...),
//   - propose a value ("enable eks", "disable waf", "set region to eu-central-1"),
//   - list the services, and say what it can do.
import type { Catalog, CatalogField } from './catalog-source.ts'
import { catalogPaths, type FieldRef } from '@ies/processor-lib/contract/fields'
import { valueAt, type Draft } from './draft.ts'
import { checkDraft, missingForStack, type Finding } from './draft-review.ts'
import type { EnvironmentView } from './environment-view.ts'

export interface AssistantInput {
  catalog: Catalog
  /** The last user message. */
  question: string
  draft?: Draft
  environment?: EnvironmentView
}

export interface AssistantAnswer {
  content: string
  /** Unchecked proposals; the route passes them through acceptSuggestions. */
  suggestions: Array<{ path: string; value: unknown; reason: string }>
}

const CHECK = /\b(check|validate|valid|review|wrong|errors?|problems?|correct|verify)\b/
const MISSING = /\b(missing|lack|lacks|need|needs|ready|complete|working|work)\b/
const LIST = /\b(services|list|available|offer|catalog)\b/
const ENABLE = /\b(enable|add|turn on|activate)\b/
const DISABLE = /\b(disable|remove|turn off|deactivate|drop)\b/
const SET = /\b(?:set|change|use|make)\s+(.+?)\s+(?:to|=|as)\s+("[^"]*"|'[^']*'|\S+)/i

const words = (s: string) => s.toLowerCase()
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const mentions = (text: string, term: string) =>
  term.length > 1 && new RegExp(`(^|[^a-z0-9_.])${escape(term.toLowerCase())}($|[^a-z0-9_])`).test(text)

/** Services named in the text, by key or display name. */
function servicesIn(catalog: Catalog, text: string): string[] {
  return Object.entries(catalog.services)
    .filter(([key, s]) => s.available !== false && (mentions(text, key) || mentions(text, s.displayName)))
    .map(([key]) => key)
}

/** Fields named in the text: a full path, or a key/display name (within a named service if any). */
function fieldsIn(catalog: Catalog, text: string, services: string[]): FieldRef[] {
  const all = catalogPaths(catalog)
  const byPath = all.filter((r) => r.service !== undefined && mentions(text, r.path))
  if (byPath.length > 0) return byPath
  const named = all.filter((r) => {
    if (r.key === 'enabled') return false
    if (r.service !== undefined && services.length > 0 && !services.includes(r.service)) return false
    return mentions(text, r.key) || mentions(text, r.field.displayName) || (r.key === 'globalPrefix' && mentions(text, 'global prefix'))
  })
  // A key shared by several services (engineVersion...) without a service named is ambiguous: keep all.
  return named
}

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

function renderFindings(title: string, findings: Finding[], empty: string): string {
  if (findings.length === 0) return `${title}\n${empty}`
  const mark = { error: 'Error', warning: 'Warning', info: 'Note' } as const
  return [title, ...findings.map((f) => `- ${mark[f.severity]}: ${f.message}`)].join('\n')
}

const fixesOf = (findings: Finding[]) => findings.flatMap((f) => (f.fix ? [f.fix] : []))

/** A typed value for a field from the text after "to". */
function parseValue(field: CatalogField, raw: string): unknown {
  const quoted = /^(["'])(.*)\1$/.exec(raw)
  const text = quoted ? quoted[2] : raw.replace(/[.,;!?]+$/, '')
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

const HELP = [
  'I am the built-in configuration assistant; I answer from the service catalog. Ask me to:',
  '- explain a service or a field ("what is msk?", "explain services.eks.nodeCapacityType"),',
  '- check your draft ("check my draft"),',
  '- list what is missing for a working stack ("what is missing?"),',
  '- propose a value ("enable eks", "set region to eu-central-1"); apply a suggestion to take it,',
  '- list the services ("which services are there?").',
].join('\n')

export function builtinAssistant({ catalog, question, draft, environment }: AssistantInput): AssistantAnswer {
  const text = words(question)
  const services = servicesIn(catalog, text)
  const fields = fieldsIn(catalog, text, services)

  const set = SET.exec(question)
  if (set) {
    const subject = words(set[1])
    const target = fieldsIn(catalog, subject, servicesIn(catalog, subject))
    if (target.length === 1) {
      const ref = target[0]
      const value = parseValue(ref.field, set[2])
      return {
        content: `Proposed: set \`${ref.path}\` to ${JSON.stringify(value)}.\n${explainField(ref, draft, catalog)}`,
        suggestions: [{ path: ref.path, value, reason: `Requested: ${ref.field.displayName} = ${JSON.stringify(value)}` }],
      }
    }
  }
  const toggle = ENABLE.test(text) ? true : DISABLE.test(text) ? false : undefined
  if (toggle !== undefined && services.length > 0) {
    const verb = toggle ? 'Enable' : 'Disable'
    return {
      content: services.map((s) => `${verb} ${catalog.services[s].displayName} (\`services.${s}.enabled\` = ${toggle}).`).join('\n'),
      suggestions: services.map((s) => ({
        path: `services.${s}.enabled`,
        value: toggle,
        reason: `${verb} ${catalog.services[s].displayName}`,
      })),
    }
  }

  const wantsCheck = CHECK.test(text)
  const wantsMissing = MISSING.test(text)
  if (wantsCheck || wantsMissing) {
    const parts: string[] = []
    const found: Finding[] = []
    if (wantsCheck || !wantsMissing) {
      const problems = checkDraft(catalog, draft)
      found.push(...problems)
      parts.push(renderFindings('Checking your draft against the catalog and the rules:', problems, 'No problems found.'))
    }
    if (wantsMissing || wantsCheck) {
      const missing = missingForStack(catalog, draft, environment)
      found.push(...missing)
      parts.push(renderFindings('For a working stack:', missing, 'Nothing is missing.'))
    }
    return { content: parts.join('\n\n'), suggestions: fixesOf(found) }
  }

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
