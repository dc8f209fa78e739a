// The environment's basic fields as the spec states them (Resources, Environment), checked as the
// user types. The server is the authority; test/desktop/renderer/lib/environments/environment-rules.test.ts holds these rules
// against the server's own schema so the two cannot drift apart.

/** 3-63 chars by pattern, and the stated 2-50 bound: a valid name satisfies both (3-50). */
export const NAME_PATTERN = /^[a-z][a-z0-9-]{2,62}$/
export const NAME_MAX = 50
export const REGION_PATTERN = /^[a-z0-9-]+$/
export const REGION_MAX = 32
/** 2-20 characters, a lowercase letter first, no trailing or doubled hyphen. */
export const GLOBAL_PREFIX_PATTERN = /^(?!.*--)[a-z][a-z0-9-]*[a-z0-9]$/
export const GLOBAL_PREFIX_MAX = 20
export const DOMAIN_MAX = 253
const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i
const TLD = /^[a-z]{2,63}$/i

export function checkName(name: string): string | null {
  if (name === '') return 'A name is required'
  if (!/^[a-z]/.test(name)) return 'Must start with a lowercase letter'
  if (!/^[a-z0-9-]*$/.test(name)) return 'Only lowercase letters, digits and hyphens'
  if (name.length < 3) return 'At least 3 characters'
  if (name.length > NAME_MAX || !NAME_PATTERN.test(name)) return `At most ${NAME_MAX} characters`
  return null
}

export function checkGlobalPrefix(prefix: string): string | null {
  if (prefix === '') return 'A global prefix is required'
  if (!/^[a-z]/.test(prefix)) return 'Must start with a lowercase letter'
  if (!/^[a-z0-9-]*$/.test(prefix)) return 'Only lowercase letters, digits and hyphens'
  if (prefix.length < 2) return 'At least 2 characters'
  if (prefix.length > GLOBAL_PREFIX_MAX) return `At most ${GLOBAL_PREFIX_MAX} characters`
  if (!GLOBAL_PREFIX_PATTERN.test(prefix)) return 'No trailing or doubled hyphen'
  return null
}

export function checkRegion(region: string): string | null {
  if (region === '') return 'A region is required'
  if (region.length > REGION_MAX) return `At most ${REGION_MAX} characters`
  return REGION_PATTERN.test(region) ? null : 'Only lowercase letters, digits and hyphens'
}

/** `""` is accepted: no host-based ingresses are generated. */
export function checkDomain(domain: string): string | null {
  if (domain === '') return null
  if (domain.length > DOMAIN_MAX) return `At most ${DOMAIN_MAX} characters`
  const labels = domain.split('.')
  if (labels.length < 2) return 'At least two labels, such as example.com'
  if (!labels.every((l) => DNS_LABEL.test(l))) return 'Each label: letters, digits and inner hyphens'
  if (!TLD.test(labels[labels.length - 1])) return 'The last label must be alphabetic'
  return null
}

export interface BasicsInput {
  name: string
  globalPrefix: string
  region: string
  domain: string
}

export function checkBasics(b: BasicsInput): Record<string, string> {
  const errors: Record<string, string> = {}
  const checks: [keyof BasicsInput, string | null][] = [
    ['name', checkName(b.name)],
    ['globalPrefix', checkGlobalPrefix(b.globalPrefix)],
    ['region', checkRegion(b.region)],
    ['domain', checkDomain(b.domain)],
  ]
  for (const [k, m] of checks) if (m) errors[k] = m
  return errors
}

/** A drift check on a schedule (the API's `DriftCheckHours`): every this many hours, a whole number. */
export const DRIFT_CHECK_HOURS_MIN = 1
export const DRIFT_CHECK_HOURS_MAX = 720

/** The hours as typed: `""` is accepted (no schedule: drift is checked only when asked). */
export function checkDriftCheckHours(hours: string): string | null {
  if (hours.trim() === '') return null
  const n = /^\s*\d+\s*$/.test(hours) ? Number(hours) : NaN
  return n >= DRIFT_CHECK_HOURS_MIN && n <= DRIFT_CHECK_HOURS_MAX
    ? null
    : `A whole number of hours from ${DRIFT_CHECK_HOURS_MIN} to ${DRIFT_CHECK_HOURS_MAX}, or empty to check only when asked`
}
