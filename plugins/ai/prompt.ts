// The system message for a model: its task, the rules, and the grounding: the catalog (paths,
// types, options, patterns, defaults, descriptions), the caller's environment (non-secret view),
// the draft, and the built-in review of the draft, so the model starts from the same facts.
import type { Catalog } from './catalog-source.ts'
import { catalogPaths } from '@ies/processor-lib/contract/fields'
import type { Draft } from './draft.ts'
import type { Finding } from './draft-review.ts'
import type { EnvironmentView } from './environment-view.ts'
import type { Grounding } from './grounding.ts'

export interface PromptInput extends Partial<Grounding> {
  catalog: Catalog
  draft?: Draft
  environment?: EnvironmentView
  review: Finding[]
}

function catalogLines(catalog: Catalog): string[] {
  const lines: string[] = []
  for (const ref of catalogPaths(catalog)) {
    const f = ref.field
    const service = ref.service ? catalog.services[ref.service] : undefined
    const parts = [ref.path, `type=${f.type}`]
    if (f.options) parts.push(`options=${JSON.stringify(f.options.map((o) => o.value))}`)
    if (f.pattern) parts.push(`pattern=${f.pattern}`)
    parts.push(`default=${JSON.stringify(f.default)}`)
    if (f.unit) parts.push(`unit=${f.unit}`)
    if (f.synonyms) parts.push(`also called ${f.synonyms.join(', ')}`)
    const name = service ? `${service.displayName}: ${f.displayName}` : f.displayName
    parts.push(`"${name}${f.description ? ' — ' + f.description : ''}"`)
    lines.push(parts.join(' | '))
  }
  return lines
}

export function systemPrompt({ catalog, draft, environment, review, relevant = [], reading, production }: PromptInput): string {
  return [
    'You are the configuration assistant of IES, a service that generates an AWS infrastructure-as-code',
    'repository (Terraform, chart values, GitOps definitions) from an environment configuration.',
    'Help the user fill in the environment wizard. Be brief and concrete.',
    '',
    'Rules:',
    '- Only provider aws generates a working stack.',
    '- Settable paths are exactly the catalog paths below: name, globalPrefix, region, domain and services.<key>.<field>.',
    '- A value must have the field type (toggle: true/false, number: a JSON number, dropdown: one of the option values exactly, text: a string) and match the pattern.',
    '- A field with a unit takes its value in that unit: convert what the user says ("4 days" is 345600 for unit=s), respect "at least"/"at most", and say the conversion in the reason.',
    '- An empty domain is allowed: then no host-based ingresses are generated.',
    '- Never ask for or repeat credentials, keys or passwords; you are not given any.',
    '',
    'Answer with one JSON object and nothing else:',
    '{"message": "<your answer to the user>", "suggestions": [{"path": "<catalog path>", "value": <value>, "reason": "<why>"}]}',
    'Use "suggestions": [] when you propose no change. Suggestions that break the rules are discarded.',
    '',
    `Catalog (schemaVersion ${catalog.schemaVersion}, commit ${catalog.commit}), one field per line: path | type | options | pattern | default | unit | synonyms | "label — help":`,
    ...catalogLines(catalog),
    '',
    environment ? `The user's stored environment (secrets omitted): ${JSON.stringify(environment)}` : 'No stored environment is selected.',
    draft ? `The user's current wizard draft: ${JSON.stringify(draft)}` : 'The user sent no draft.',
    '',
    `Automatic review of the draft${production ? ' (a production environment: production risks included)' : ''}:`,
    ...(review.length > 0
      ? review.map((f) => `- ${f.severity}: ${f.message}${f.fix ? ` Fix: ${f.fix.path} = ${JSON.stringify(f.fix.value)}.` : ''}`)
      : ['- no findings']),
    '',
    `Catalog entries that match the last request (text retrieval, best first): ${relevant.length > 0 ? relevant.join(', ') : 'none'}`,
    'What the built-in rules read from the last request (use, adjust or drop; say why):',
    ...(reading && (reading.proposals.length > 0 || reading.notes.length > 0)
      ? [
          ...reading.proposals.map((p) => `- ${p.path} = ${JSON.stringify(p.value)}: ${p.reason}`),
          ...reading.notes.map((n) => `- note: ${n}`),
        ]
      : ['- nothing']),
    '',
    'Give every suggestion a reason a platform engineer can check (the field, and why).',
  ].join('\n')
}
