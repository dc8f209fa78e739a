// Checks a draft against the catalog and the spec's rules, and lists what a working stack still
// lacks. Used by the built-in assistant (its answer) and by the prompt (grounding for a model).
import type { Catalog } from './catalog-source.ts'
import { GLOBAL_KEYS, fieldAt, valueProblem } from '@ies/processor-lib/contract/fields'
import { relationProblems } from '@ies/processor-lib/contract/relations'
import { testPattern } from '@ies/server/core/safe-pattern'
import { isEnabled, valueAt, type Draft } from './draft.ts'
import type { EnvironmentView } from './environment-view.ts'

export type Severity = 'error' | 'warning' | 'info'

export interface Finding {
  severity: Severity
  /** The catalog path concerned, when there is one. */
  path?: string
  message: string
  /** A fix, when one value makes it right (still checked by acceptSuggestions). */
  fix?: { path: string; value: unknown; reason: string }
}

/**
 * How the services of the AWS stack depend on each other (docs/template-authors.md, "What wires to
 * what"); a rule is only applied when the catalog has both services.
 */
export const NEEDS_NETWORK = ['eks', 'rds', 'aurora', 'elasticache', 'msk', 'opensearch'] as const

const has = (catalog: Catalog, service: string) => Object.hasOwn(catalog.services, service) && catalog.services[service].available !== false
const label = (catalog: Catalog, service: string) => catalog.services[service]?.displayName ?? service
const isBlank = (v: unknown) => v === undefined || v === null || v === ''

/** The value the stack gets: the draft's, else the catalog default. */
function effective(catalog: Catalog, draft: Draft | undefined, path: string): unknown {
  const value = valueAt(draft, path)
  return value === undefined ? fieldAt(catalog, path)?.field.default : value
}

function enableFix(catalog: Catalog, service: string, reason: string) {
  return { path: `services.${service}.enabled`, value: true, reason: `Enable ${label(catalog, service)}: ${reason}` }
}

/** Values that break the catalog's types, options and patterns, or the spec's rules. */
export function checkDraft(catalog: Catalog, draft: Draft | undefined): Finding[] {
  const findings: Finding[] = []
  for (const key of GLOBAL_KEYS) {
    const ref = fieldAt(catalog, key)
    if (!ref) continue
    const value = valueAt(draft, key)
    if (isBlank(value)) continue // reported by missingForStack
    const problem = valueProblem(ref, value, testPattern)
    if (problem) {
      findings.push({
        severity: 'error',
        path: key,
        message: `${ref.field.displayName} (${key}) ${problem}.`,
        ...(key !== 'name' &&
          key !== 'globalPrefix' && {
            fix: { path: key, value: ref.field.default, reason: `Catalog default for ${ref.field.displayName}` },
          }),
      })
    }
  }
  const provider = draft?.provider
  if (provider !== undefined && provider !== 'aws') {
    findings.push({
      severity: 'error',
      message: `Provider ${JSON.stringify(provider)} generates nothing: only provider aws generates a working stack.`,
    })
  }
  for (const [service, values] of Object.entries(draft?.services ?? {})) {
    if (!has(catalog, service)) {
      findings.push({
        severity: 'warning',
        path: `services.${service}`,
        message: `Service "${service}" is not in the catalog: it is stored but generates nothing.`,
      })
      continue
    }
    for (const [key, value] of Object.entries(values ?? {})) {
      const path = `services.${service}.${key}`
      const ref = fieldAt(catalog, path)
      if (!ref) {
        findings.push({
          severity: 'warning',
          path,
          message: `${label(catalog, service)} has no field "${key}" in the catalog: it is ignored.`,
        })
        continue
      }
      const problem = valueProblem(ref, value, testPattern)
      if (problem) {
        findings.push({
          severity: 'error',
          path,
          message: `${label(catalog, service)} ${ref.field.displayName} (${path}) ${problem}.`,
          fix: { path, value: ref.field.default, reason: `Catalog default for ${ref.field.displayName}` },
        })
      }
    }
  }
  // Relations between fields, as the templates declare them (atLeast= / atMost=): the same check the
  // API and the wizard make. A field whose value is already reported above is not reported twice.
  // One fix per chain of relations: with minimum 10 > maximum 5 > initial 5, lowering the minimum to 5
  // mends both; a second fix on the initial count would contradict the first.
  const reported = new Set(findings.map((f) => f.path))
  const fixed = new Set<string>()
  for (const p of relationProblems(catalog, { ...draft, services: draft?.services ?? {} })) {
    if (reported.has(p.field) || (p.other !== undefined && reported.has(p.other))) continue
    const name = fieldAt(catalog, p.field)?.field.displayName ?? p.field
    const service = p.field.split('.')[1]
    const fixable = p.limit !== undefined && !fixed.has(p.field) && !(p.other !== undefined && fixed.has(p.other))
    findings.push({
      severity: 'error',
      path: p.field,
      message: `${label(catalog, service)}: ${name} ${p.message}.`,
      ...(fixable && { fix: { path: p.field, value: p.limit, reason: `${name} ${p.message.replace(/; it is .*$/, '')}` } }),
    })
    fixed.add(p.field)
  }
  return findings
}

/** What a working stack still lacks, and combinations that work but probably not as meant. */
export function missingForStack(catalog: Catalog, draft: Draft | undefined, environment?: EnvironmentView): Finding[] {
  const findings: Finding[] = []
  for (const key of GLOBAL_KEYS) {
    const ref = fieldAt(catalog, key)
    // An empty domain is a real answer (no host-based ingress), reported below as a note.
    if (!ref || key === 'domain' || !isBlank(valueAt(draft, key))) continue
    findings.push({
      severity: 'error',
      path: key,
      message: `${ref.field.displayName} (${key}) is required.`,
      // No invented environment name or prefix: those are the user's to choose.
      ...(key !== 'name' &&
        key !== 'globalPrefix' && { fix: { path: key, value: ref.field.default, reason: `Catalog default for ${ref.field.displayName}` } }),
    })
  }
  const enabled = Object.keys(catalog.services).filter((s) => has(catalog, s) && isEnabled(draft, s))
  if (enabled.length === 0) {
    findings.push({
      severity: 'error',
      message: 'No service is enabled: the generated stack would create nothing.',
      ...(has(catalog, 'vpc') && { fix: enableFix(catalog, 'vpc', 'a network is the base of every other service') }),
    })
  }
  const networked = NEEDS_NETWORK.filter((s) => enabled.includes(s))
  if (networked.length > 0 && has(catalog, 'vpc') && !isEnabled(draft, 'vpc')) {
    findings.push({
      severity: 'warning',
      path: 'services.vpc.enabled',
      message: `${networked.map((s) => label(catalog, s)).join(', ')} need a network; without the VPC service they use an existing network or the account's default VPC.`,
      fix: enableFix(catalog, 'vpc', `private subnets for ${networked.map((s) => label(catalog, s)).join(', ')}`),
    })
  }
  const domain = effective(catalog, draft, 'domain')
  const hasDomain = typeof domain === 'string' && domain !== ''
  if (isEnabled(draft, 'route53') && !hasDomain) {
    findings.push({
      severity: 'warning',
      path: 'domain',
      message: 'Route53 is enabled but the domain is empty: it creates no hosted zone and no certificate. Set a domain.',
    })
  }
  if (hasDomain && has(catalog, 'route53') && !isEnabled(draft, 'route53')) {
    findings.push({
      severity: 'info',
      path: 'services.route53.enabled',
      message: `The domain ${domain} gets host-based ingresses, but without Route53 the stack creates no hosted zone and no certificate for it.`,
      fix: enableFix(catalog, 'route53', `hosted zone and wildcard certificate for ${domain}`),
    })
  }
  if (!hasDomain) {
    findings.push({
      severity: 'info',
      path: 'domain',
      message: 'No domain: no host-based ingresses are generated for the delivery, dashboard and metrics tools (domain is sent as "").',
    })
  }
  if (isEnabled(draft, 'cloudfront')) {
    if (has(catalog, 'waf') && !isEnabled(draft, 'waf')) {
      findings.push({
        severity: 'warning',
        path: 'services.waf.enabled',
        message: 'CloudFront is enabled without the WAF: the distribution has no web ACL.',
        fix: enableFix(catalog, 'waf', 'protects the CloudFront distribution'),
      })
    }
    if (hasDomain && has(catalog, 'route53') && !isEnabled(draft, 'route53')) {
      findings.push({
        severity: 'info',
        path: 'services.cloudfront.subdomain',
        message: 'CloudFront gets its DNS name only with Route53 and a domain.',
      })
    }
  }
  if (environment) {
    if (!environment.hasCloudCredential)
      findings.push({ severity: 'info', message: 'The environment has no cloud credential assigned: deploying needs one.' })
    if (!environment.hasTerraformBackend)
      findings.push({ severity: 'info', message: 'The environment has no Terraform state backend: the generated stack uses local state.' })
    if (!environment.gitRepository.configured)
      findings.push({ severity: 'info', message: 'The environment has no Git repository: pushing the generated repository needs one.' })
  }
  return findings
}

/** Both lists: first what is wrong, then what is missing. */
export function reviewDraft(catalog: Catalog, draft: Draft | undefined, environment?: EnvironmentView): Finding[] {
  return [...checkDraft(catalog, draft), ...missingForStack(catalog, draft, environment)]
}
