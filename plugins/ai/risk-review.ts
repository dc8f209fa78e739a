// Risky choices: values that generate and deploy, but that a platform engineer would not want
// without knowing (a public Kubernetes API, a database without deletion protection or backups, one
// NAT gateway for a production network). Each rule names a catalog path and is applied only when the
// catalog has that field and its service is enabled; the value judged is the draft's, else the
// catalog default (what the stack gets). Rules marked `production` apply to production environments
// only: an environment whose name or prefix says so ("prod", "production", "prd", "live"), or a
// conversation that asks for production.
import type { Catalog } from './catalog-source.ts'
import { fieldAt } from '@ies/processor-lib/contract/fields'
import { isEnabled, valueAt, type Draft } from './draft.ts'
import type { Finding } from './draft-review.ts'

interface RiskRule {
  path: string
  risky: (value: unknown) => boolean
  /** The value that removes the risk. */
  safe: string | number | boolean
  production?: true
  /** Why the value is risky (a sentence). */
  why: string
}

const isTrue = (v: unknown) => v === true
const isFalse = (v: unknown) => v === false
const below = (n: number) => (v: unknown) => typeof v === 'number' && v < n

export const RISK_RULES: readonly RiskRule[] = [
  {
    path: 'services.eks.endpointPublicAccess',
    risky: isTrue,
    safe: false,
    why: 'the Kubernetes API is reachable from the internet (only the allowed CIDR blocks are let in); a private endpoint is reachable from the VPC only',
  },
  {
    path: 'services.rds.deletionProtection',
    risky: isFalse,
    safe: true,
    why: 'without deletion protection a mistaken destroy deletes the database',
  },
  {
    path: 'services.aurora.deletionProtection',
    risky: isFalse,
    safe: true,
    why: 'without deletion protection a mistaken destroy deletes the cluster',
  },
  { path: 'services.rds.backupRetentionDays', risky: below(7), safe: 7, why: 'fewer than 7 days of point-in-time recovery' },
  { path: 'services.aurora.backupRetentionDays', risky: below(7), safe: 7, why: 'fewer than 7 days of point-in-time recovery' },
  {
    path: 'services.elasticache.snapshotRetentionDays',
    risky: (v) => v === 0,
    safe: 5,
    why: 'snapshots are off: the cache has no backups',
  },
  { path: 'services.s3.versioning', risky: isFalse, safe: true, why: 'without versioning an overwritten or deleted object is lost' },
  { path: 'services.s3.forceDestroy', risky: isTrue, safe: false, why: 'a destroy deletes the bucket together with every object in it' },
  { path: 'services.route53.forceDestroy', risky: isTrue, safe: false, why: 'a destroy deletes the zone with records it does not manage' },
  { path: 'services.vpc.flowLogs', risky: isFalse, safe: true, why: 'no record of network traffic for audits and incident response' },
  {
    path: 'services.waf.managedRulesMode',
    risky: (v) => v === 'count',
    safe: 'block',
    why: 'the managed rules only count matches and block nothing',
  },
  { path: 'services.ecr.scanOnPush', risky: isFalse, safe: true, why: 'pushed images are not scanned for vulnerabilities' },
  {
    path: 'services.ecr.imageTagMutability',
    risky: (v) => v === 'MUTABLE',
    safe: 'IMMUTABLE',
    why: 'a tag can be overwritten, so a deployed tag may change under you',
  },
  {
    path: 'services.vpc.singleNatGateway',
    risky: isTrue,
    safe: false,
    production: true,
    why: 'one NAT gateway is a single point of failure: private subnets of the other zones lose outbound traffic when its zone fails',
  },
  { path: 'services.rds.multiAz', risky: isFalse, safe: true, production: true, why: 'no standby: a zone failure stops the database' },
  { path: 'services.aurora.instanceCount', risky: below(2), safe: 2, production: true, why: 'one instance: no reader to fail over to' },
  { path: 'services.elasticache.nodeCount', risky: below(2), safe: 2, production: true, why: 'one node: no automatic failover' },
  { path: 'services.opensearch.instanceCount', risky: below(2), safe: 2, production: true, why: 'one data node: no copy in a second zone' },
  {
    path: 'services.eks.nodeCapacityType',
    risky: (v) => v === 'SPOT',
    safe: 'ON_DEMAND',
    production: true,
    why: 'spot nodes can be reclaimed with two minutes notice',
  },
]

const PRODUCTION_NAME = /(^|[-_])(prod|production|prd|live)([-_]|$)/

/** True when the draft's name or prefix says production. */
export function namesProduction(draft: Draft | undefined): boolean {
  return [draft?.name, draft?.globalPrefix].some((v) => typeof v === 'string' && PRODUCTION_NAME.test(v))
}

/** The risky choices of a draft, each with the value that removes the risk. */
export function riskReview(catalog: Catalog, draft: Draft | undefined, production: boolean): Finding[] {
  const findings: Finding[] = []
  for (const rule of RISK_RULES) {
    if (rule.production && !production) continue
    const ref = fieldAt(catalog, rule.path)
    if (!ref?.service || !isEnabled(draft, ref.service)) continue
    const set = valueAt(draft, rule.path)
    const value = set === undefined ? ref.field.default : set
    if (!rule.risky(value)) continue
    const service = catalog.services[ref.service].displayName
    const name = `${service} ${ref.field.displayName}`
    findings.push({
      severity: 'warning',
      path: rule.path,
      message: `${name} is ${JSON.stringify(value)}${set === undefined ? ' (the default)' : ''}: ${rule.why}.`,
      fix: { path: rule.path, value: rule.safe, reason: `${name}: ${JSON.stringify(rule.safe)}, because otherwise ${rule.why}` },
    })
  }
  return findings
}
