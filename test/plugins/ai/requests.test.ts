// The built-in assistant against a set of real requests: each request, sent over HTTP with
// its draft (and, for follow-ups, the conversation before it, with the assistant's real answers),
// must yield the expected suggestions (path = value) and no unexpected change; requests it cannot
// fulfil must say why. The catalog is the bundled templates' one, as GET /api/catalog serves it.
import t from 'tap'
import { runRequestCases, withServices, type Case } from './request-cases.ts'

const CASES: Record<string, Case> = {
  'private EKS with Postgres': {
    ask: 'I need a private EKS cluster with Postgres',
    expect: {
      'services.eks.enabled': true,
      'services.rds.enabled': true,
      'services.vpc.enabled': true,
      'services.eks.endpointPublicAccess': false,
    },
    not: ['services.aurora.enabled'],
    says: /Aurora PostgreSQL.*alternative/,
    only: true,
  },
  'enable one service': { ask: 'enable eks', expect: { 'services.eks.enabled': true, 'services.vpc.enabled': true }, only: true },
  'disable a service': {
    ask: 'disable the waf',
    draft: withServices({ waf: { enabled: true }, cloudfront: { enabled: false } }),
    expect: { 'services.waf.enabled': false },
    only: true,
  },
  'a region': { ask: 'set region to eu-central-1', expect: { region: 'eu-central-1' }, only: true },
  'a region that is none': { ask: 'set region to mars', expect: {}, only: true, says: /cannot set AWS region .*"mars"/ },
  'a region in passing': { ask: 'deploy it to us-east-2', expect: { region: 'us-east-2' }, only: true },
  'queue and cache by what they are': {
    ask: 'a queue and a redis cache',
    expect: { 'services.sqs.enabled': true, 'services.elasticache.enabled': true, 'services.vpc.enabled': true },
    only: true,
  },
  'kafka and search': {
    ask: 'I want kafka and a search engine',
    expect: { 'services.msk.enabled': true, 'services.opensearch.enabled': true, 'services.vpc.enabled': true },
    only: true,
  },
  'a node range on the relation': {
    ask: 'eks with 3 to 6 nodes',
    expect: {
      'services.eks.enabled': true,
      'services.eks.nodeMinSize': 3,
      'services.eks.nodeMaxSize': 6,
      'services.eks.nodeDesiredSize': 3,
      'services.vpc.enabled': true,
    },
    only: true,
  },
  'a range for the enabled service': {
    ask: 'between 2 and 10 nodes',
    draft: withServices({ vpc: { enabled: true }, eks: { enabled: true, nodeMinSize: 1, nodeMaxSize: 3 } }),
    expect: { 'services.eks.nodeMinSize': 2, 'services.eks.nodeMaxSize': 10 },
    only: true,
  },
  'an option by its label': {
    ask: 'spot instances please',
    draft: withServices({ vpc: { enabled: true }, eks: { enabled: true } }),
    expect: { 'services.eks.nodeCapacityType': 'SPOT' },
    only: true,
  },
  'a bound that moves the other side': {
    ask: 'minimum nodes 10',
    draft: withServices({ vpc: { enabled: true }, eks: { enabled: true, nodeMaxSize: 5, nodeDesiredSize: 2 } }),
    expect: { 'services.eks.nodeMinSize': 10, 'services.eks.nodeMaxSize': 10, 'services.eks.nodeDesiredSize': 10 },
    only: true,
  },
  'a CDN needs its firewall': {
    ask: 'cloudfront cdn',
    expect: { 'services.cloudfront.enabled': true, 'services.waf.enabled': true },
    only: true,
  },
  'a registry by its description': { ask: 'a docker registry', expect: { 'services.ecr.enabled': true }, only: true },
  'production ready': {
    ask: 'make it production ready',
    draft: withServices({ vpc: { enabled: true }, rds: { enabled: true } }),
    expect: { 'services.rds.multiAz': true, 'services.vpc.singleNatGateway': false },
    not: ['services.rds.deletionProtection'],
  },
  'a follow-up about the same service': {
    ask: ['I need postgres', 'make it multi-AZ'],
    expect: { 'services.rds.multiAz': true, 'services.rds.enabled': true },
    not: ['services.aurora.enabled'],
  },
  instead: {
    ask: ['postgres please', 'use aurora instead'],
    draft: withServices({ vpc: { enabled: true }, rds: { enabled: true } }),
    expect: { 'services.aurora.enabled': true, 'services.rds.enabled': false },
    only: true,
  },
  'a public endpoint turned off': {
    ask: 'no public endpoint for the kubernetes api',
    draft: withServices({ vpc: { enabled: true }, eks: { enabled: true, endpointPublicAccess: true } }),
    expect: { 'services.eks.endpointPublicAccess': false },
    only: true,
  },
  'a toggle off': {
    ask: 'turn off flow logs',
    draft: withServices({ vpc: { enabled: true } }),
    expect: { 'services.vpc.flowLogs': false },
    only: true,
  },
  'an option shared by name': {
    ask: 'lambda on x86',
    expect: { 'services.lambda.enabled': true, 'services.lambda.architecture': 'x86_64' },
    only: true,
  },
  'an option picked by its number': {
    ask: 'lambda with node 22',
    expect: { 'services.lambda.enabled': true, 'services.lambda.runtime': 'nodejs22.x' },
    only: true,
  },
  'a domain': { ask: 'route53 for example.com', expect: { 'services.route53.enabled': true, domain: 'example.com' }, only: true },
  'set a field by its name': {
    ask: 'set the maximum nodes to 8',
    draft: withServices({ vpc: { enabled: true }, eks: { enabled: true } }),
    expect: { 'services.eks.nodeMaxSize': 8 },
    only: true,
  },
  'ambiguous without a service': { ask: '3 nodes', expect: {}, only: true, says: /fits several fields.*Name the service/ },
  'ambiguous field': { ask: 'backups', expect: {}, only: true, says: /backupRetentionDays.*Name the service/ },
  'a value with its service': {
    ask: 'rds with 14 days of backups',
    expect: { 'services.rds.enabled': true, 'services.rds.backupRetentionDays': 14, 'services.vpc.enabled': true },
    only: true,
  },
  'a value past the declared bound': {
    ask: 'rds backups 60 days',
    draft: withServices({ vpc: { enabled: true }, rds: { enabled: true } }),
    expect: {},
    only: true,
    says: /cannot set Backup retention.*at most 35/,
  },
  hardening: {
    ask: 'secure settings for s3',
    draft: withServices({ s3: { enabled: true, versioning: false, forceDestroy: true } }),
    expect: { 'services.s3.versioning': true, 'services.s3.forceDestroy': false },
    only: true,
  },
  'two zones': {
    ask: '2 availability zones',
    draft: withServices({ vpc: { enabled: true } }),
    expect: { 'services.vpc.azCount': 2 },
    only: true,
  },
  'without a service': {
    ask: 'without opensearch',
    draft: withServices({ vpc: { enabled: true }, opensearch: { enabled: true } }),
    expect: { 'services.opensearch.enabled': false },
    only: true,
  },
  'check: contradictions are errors, said first': {
    ask: 'check my draft',
    draft: withServices({ vpc: { enabled: true }, eks: { enabled: true, nodeMinSize: 10, nodeMaxSize: 5, nodeDesiredSize: 5 } }),
    expect: { 'services.eks.nodeMinSize': 5 },
    // one fix mends the chain (minimum 5 <= initial 5 <= maximum 5); a second would contradict it
    not: ['services.eks.nodeDesiredSize'],
    says: /^I found 2 errors\.[^]*Minimum nodes must be at most Maximum nodes/,
  },
  'check: risky choices': {
    ask: 'check my draft',
    draft: withServices({ vpc: { enabled: true }, rds: { enabled: true, deletionProtection: false, backupRetentionDays: 1 } }),
    expect: { 'services.rds.deletionProtection': true, 'services.rds.backupRetentionDays': 7 },
    says: /2 risky choices; the draft is valid/,
  },
  'check: production by its name': {
    ask: 'is it production ready?',
    draft: withServices({ vpc: { enabled: true }, eks: { enabled: true } }, { name: 'shop-prod' }),
    expect: { 'services.vpc.singleNatGateway': false },
    says: /Risky choices for production/,
  },
  'check: a clean draft': {
    ask: 'check my draft',
    draft: withServices({ vpc: { enabled: true }, s3: { enabled: true } }),
    expect: {},
    only: true,
    says: /^No problems found/,
  },
  why: {
    ask: ['I need a private EKS cluster with Postgres', 'why?'],
    expect: { 'services.eks.enabled': true, 'services.rds.enabled': true, 'services.vpc.enabled': true },
    says: /^Why I suggested these/,
  },
  'highly available, with a value': {
    ask: 'I need a highly available postgres with 30 days of backups',
    expect: {
      'services.rds.enabled': true,
      'services.vpc.enabled': true,
      'services.rds.backupRetentionDays': 30,
      'services.rds.multiAz': true,
      'services.vpc.singleNatGateway': false,
    },
    only: true,
    says: /I read "postgres" as RDS PostgreSQL/,
  },
  'a risky value asked for is proposed, with the risk said': {
    ask: 'disable deletion protection on rds',
    draft: withServices({ vpc: { enabled: true }, rds: { enabled: true } }),
    expect: { 'services.rds.deletionProtection': false },
    only: true,
    says: /Mind the risk: .*mistaken destroy deletes the database/,
  },
  'production in the conversation does not add fixes to a later request': {
    ask: ['make it production ready', 'disable deletion protection on rds'],
    draft: withServices({ vpc: { enabled: true }, rds: { enabled: true } }),
    expect: { 'services.rds.deletionProtection': false },
    only: true,
  },
  'an e-mail address to the field that takes one': {
    ask: 'sns alerts to ops@example.com',
    expect: { 'services.sns.enabled': true, 'services.sns.alertEmail': 'ops@example.com' },
    only: true,
  },
  'options by value': {
    ask: 'eks 1.36 with m7g.large nodes',
    expect: {
      'services.eks.enabled': true,
      'services.vpc.enabled': true,
      'services.eks.kubernetesVersion': '1.36',
      'services.eks.nodeInstanceType': 'm7g.large',
    },
    only: true,
  },
  'a very long message is read up to its bounds, and says so': {
    ask: 'enable eks and '.repeat(40) + 'enable waf',
    expect: { 'services.eks.enabled': true, 'services.vpc.enabled': true },
    only: true,
    says: /Your message has 41 parts; I read the first 12\./,
  },
  'a question is answered, not acted on': { ask: 'what is msk?', expect: {}, only: true, says: /MSK \(Kafka\)/ },
}

t.test('the built-in assistant on real requests', async (t) => {
  t.ok(Object.keys(CASES).length >= 30, `${Object.keys(CASES).length} requests`)
  await runRequestCases(t, CASES)
})
