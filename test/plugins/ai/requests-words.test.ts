// The built-in assistant on the words engineers use: quantities in any unit converted to the field's
// declared unit (`unit=` in the templates) under bounds, places for regions, AWS's own vocabulary,
// words the templates declare (`synonyms=`), and the parts of a request that matched nothing. Each
// request goes over HTTP with the bundled catalog and must yield exactly the suggestions listed.
import t from 'tap'
import { base, runRequestCases, withServices, type Case } from './request-cases.ts'

const on = (...keys: string[]) => Object.fromEntries(keys.map((k) => [k, { enabled: true }]))
const vpc = { 'services.vpc.enabled': true }

const UNITS: Record<string, Case> = {
  'days into seconds, from the issue': {
    ask: 'messages must survive for 4 days',
    expect: { 'services.sqs.enabled': true, 'services.sqs.messageRetentionSeconds': 345600 },
    only: true,
    reasons: { 'services.sqs.messageRetentionSeconds': /4 days = 345600 s/ },
  },
  'a number in words and weeks into days, with at least': {
    ask: 'at least two weeks of backups',
    draft: withServices(on('vpc', 'rds')),
    expect: { 'services.rds.backupRetentionDays': 14 },
    only: true,
    reasons: { 'services.rds.backupRetentionDays': /at least 2 weeks = 14 days/ },
  },
  'minutes into seconds': {
    ask: 'sqs visibility timeout of 2 minutes',
    expect: { 'services.sqs.enabled': true, 'services.sqs.visibilityTimeoutSeconds': 120 },
    only: true,
    reasons: { 'services.sqs.visibilityTimeoutSeconds': /2 minutes = 120 s/ },
  },
  'ninety minutes in words': {
    ask: 'a lambda timeout of ninety seconds',
    expect: { 'services.lambda.enabled': true, 'services.lambda.timeout': 90 },
    only: true,
  },
  'an hour and a half into seconds, over the declared bound': {
    ask: 'lambda timeout of one and a half hours',
    expect: { 'services.lambda.enabled': true },
    only: true,
    says: /cannot set Lambda Timeout \(s\) .* to 5400 \(1\.5 hours = 5400 s\)/,
  },
  'GB into MiB for memory (AWS sizes are binary)': {
    ask: 'lambda with 2 GB of memory',
    expect: { 'services.lambda.enabled': true, 'services.lambda.memorySize': 2048 },
    only: true,
    reasons: { 'services.lambda.memorySize': /2 GB = 2048 MiB/ },
  },
  'GiB with a fraction': {
    ask: 'give the lambda 1.5 GiB of ram',
    expect: { 'services.lambda.enabled': true, 'services.lambda.memorySize': 1536 },
    only: true,
  },
  'MB as written': {
    ask: 'lambda memory 512 MB',
    draft: withServices(on('lambda')),
    expect: { 'services.lambda.memorySize': 512 },
    only: true,
  },
  'half a terabyte into GiB, found by the unit': {
    ask: 'msk with half a terabyte per broker',
    expect: { 'services.msk.enabled': true, ...vpc, 'services.msk.volumeSize': 512 },
    only: true,
    reasons: { 'services.msk.volumeSize': /0\.5 TB = 512 GiB/ },
  },
  'gigs per node': {
    ask: 'opensearch with 50 gigs per node',
    expect: { 'services.opensearch.enabled': true, ...vpc, 'services.opensearch.volumeSize': 50 },
    only: true,
  },
  'a year into a dropdown of days': {
    ask: 'keep flow logs for a year',
    draft: withServices(on('vpc')),
    expect: { 'services.vpc.flowLogRetentionDays': 365 },
    only: true,
  },
  'at least two years: the smallest option that holds it': {
    ask: 'keep flow logs for at least 2 years',
    draft: withServices(on('vpc')),
    expect: { 'services.vpc.flowLogRetentionDays': 731 },
    only: true,
    reasons: { 'services.vpc.flowLogRetentionDays': /at least 2 years = 730 days; 731 is the smallest accepted value/ },
  },
  'no more than 6 months of lambda logs: the largest option within it': {
    ask: 'no more than 6 months of logs',
    draft: withServices(on('lambda')),
    expect: { 'services.lambda.logRetentionDays': 180 },
    only: true,
  },
  'a quarter of old versions': {
    ask: 'keep old versions for a quarter',
    draft: withServices(on('s3')),
    expect: { 'services.s3.noncurrentVersionExpirationDays': 90 },
    only: true,
    reasons: { 'services.s3.noncurrentVersionExpirationDays': /1 quarter = 90 days/ },
  },
  'no more than: capped at the declared maximum': {
    ask: 'no more than 60 days of backups',
    draft: withServices(on('vpc', 'rds')),
    expect: { 'services.rds.backupRetentionDays': 35 },
    only: true,
    reasons: { 'services.rds.backupRetentionDays': /at most 60 days; 35 is the largest accepted value/ },
  },
  'at least: raised to the declared minimum': {
    ask: 'rds with at least 10 GB storage',
    expect: { 'services.rds.enabled': true, ...vpc, 'services.rds.allocatedStorage': 20 },
    only: true,
    reasons: { 'services.rds.allocatedStorage': /20 is the smallest accepted value/ },
  },
  'half a day of backups: the nearest value a whole-day field takes': {
    ask: 'aurora with twelve hours of backups',
    draft: withServices(on('vpc', 'aurora')),
    expect: { 'services.aurora.backupRetentionDays': 1 },
    only: true,
    says: /Mind the risk/,
  },
  'between two durations on one field: the smallest value in the range': {
    ask: 'sqs retention between 1 and 2 days',
    expect: { 'services.sqs.enabled': true, 'services.sqs.messageRetentionSeconds': 86400 },
    only: true,
    reasons: { 'services.sqs.messageRetentionSeconds': /between 1 and 2 days = 86400 to 172800 s/ },
  },
  'between two sizes on a relation': {
    ask: 'rds storage between 100 GB and 1 TB',
    expect: { 'services.rds.enabled': true, ...vpc, 'services.rds.allocatedStorage': 100, 'services.rds.maxAllocatedStorage': 1024 },
    only: true,
  },
  'a week of snapshots': {
    ask: 'elasticache snapshots for a week',
    expect: { 'services.elasticache.enabled': true, ...vpc, 'services.elasticache.snapshotRetentionDays': 7 },
    only: true,
  },
  'more than SQS keeps: said with the limit': {
    ask: 'messages must survive for 3 weeks',
    expect: { 'services.sqs.enabled': true },
    only: true,
    says: /cannot set Message retention \(s\): it must be at most 1209600/,
  },
  'too little memory: said with the conversion': {
    ask: 'lambda with 64 MB memory',
    draft: withServices(on('lambda')),
    expect: {},
    only: true,
    says: /cannot set Lambda Memory \(MB\)/,
  },
  'a duration for a size field is not taken': {
    ask: 'eks node disk of 3 days',
    draft: withServices(on('vpc', 'eks')),
    expect: {},
    only: true,
    says: /Node disk size \(GiB\) \(`services\.eks\.nodeDiskSize`\) needs a quantity in GiB/,
  },
  'the same field of every service in view': {
    ask: 'keep backups for a month',
    draft: withServices(on('vpc', 'rds', 'aurora')),
    expect: { 'services.rds.backupRetentionDays': 30, 'services.aurora.backupRetentionDays': 30 },
    only: true,
    reasons: { 'services.aurora.backupRetentionDays': /1 month = 30 days/ },
  },
  'at least a count: the lower side of the relation': {
    ask: 'at least 3 nodes',
    draft: withServices(on('vpc', 'eks')),
    expect: { 'services.eks.nodeMinSize': 3, 'services.eks.nodeDesiredSize': 3 },
    only: true,
  },
  'no more than a count: the upper side of the relation': {
    ask: 'no more than 4 nodes',
    draft: withServices(on('vpc', 'eks')),
    expect: { 'services.eks.nodeMaxSize': 4 },
    only: true,
  },
  '"set … to" a quantity': {
    ask: 'set the message retention to 4 days',
    draft: withServices(on('sqs')),
    expect: { 'services.sqs.messageRetentionSeconds': 345600 },
    only: true,
    reasons: { 'services.sqs.messageRetentionSeconds': /4 days = 345600 s/ },
  },
  'a follow-up with only a quantity': {
    ask: ['rds backups for a week', 'make it 2 weeks'],
    expect: { 'services.rds.enabled': true, ...vpc, 'services.rds.backupRetentionDays': 14 },
    only: true,
  },
  'a quantity without its service is asked about': {
    ask: 'at least two weeks of backups',
    expect: {},
    only: true,
    says: /fits several fields: .*rds\.backupRetentionDays.*aurora\.backupRetentionDays.*Name the service/,
  },
}

const PLACES: Record<string, Case> = {
  'a city, from the issue': {
    ask: 'Move everything to Frankfurt',
    expect: { region: 'eu-central-1' },
    only: true,
    reasons: { region: /Frankfurt is eu-central-1/ },
  },
  'a country': {
    ask: 'we have to run in Ireland',
    draft: { ...base, region: 'us-east-1', services: {} },
    expect: { region: 'eu-west-1' },
    only: true,
  },
  'a state': { ask: 'host it in Virginia', expect: { region: 'us-east-1' }, only: true },
  'Tokyo with a service': {
    ask: 'deploy to Tokyo with sqs',
    expect: { region: 'ap-northeast-1', 'services.sqs.enabled': true },
    only: true,
  },
  'a country with one region': { ask: 'our customers are in Germany, move there', expect: { region: 'eu-central-1' }, only: true },
  'an ambiguous area is asked about': {
    ask: 'deploy in US East',
    expect: {},
    only: true,
    says: /"US East" has 2 regions: us-east-1 \(N\. Virginia\), us-east-2 \(Ohio\)\. Which one\?/,
  },
  'an ambiguous country is asked about': {
    ask: 'move it to Japan',
    expect: {},
    only: true,
    says: /"Japan" has 2 regions: ap-northeast-1 \(Tokyo\), ap-northeast-3 \(Osaka\)/,
  },
  'Europe when the draft is already there': {
    ask: 'move to Europe',
    expect: {},
    only: true,
    says: /Your region eu-west-1 \(Ireland\) is already in Europe; its other regions: .*eu-central-1 \(Frankfurt\)/,
  },
  'Europe from elsewhere lists its regions': {
    ask: 'move to Europe',
    draft: { ...base, region: 'us-east-1', services: {} },
    expect: {},
    only: true,
    says: /"Europe" has 8 regions: eu-west-1 \(Ireland\), .*eu-central-1 \(Frankfurt\)/,
  },
  '"set region to" a place': { ask: 'set the region to N. Virginia', expect: { region: 'us-east-1' }, only: true },
  'a region code still wins': { ask: 'deploy it to eu-north-1', expect: { region: 'eu-north-1' }, only: true },
}

const VOCABULARY: Record<string, Case> = {
  'Graviton across the enabled services': {
    ask: 'run everything on Graviton',
    draft: withServices({ ...on('vpc', 'eks', 'rds'), lambda: { enabled: true, architecture: 'x86_64' } }),
    expect: { 'services.eks.nodeInstanceType': 'm7g.large', 'services.lambda.architecture': 'arm64' },
    only: true,
    says: /Every RDS PostgreSQL Instance class option is Graviton \(arm64\) already/,
  },
  'Graviton for one service, same size': {
    ask: 'opensearch on graviton',
    draft: withServices({ ...on('vpc'), opensearch: { enabled: true, instanceType: 't3.medium.search' } }),
    expect: { 'services.opensearch.instanceType': 'm6g.large.search' },
    only: true,
    reasons: { 'services.opensearch.instanceType': /Graviton \(arm64\): m6g\.large\.search instead of "t3\.medium\.search"/ },
  },
  'Graviton for a broker keeps the service on': {
    ask: 'msk on graviton',
    draft: withServices({ ...on('vpc'), msk: { enabled: true, brokerInstanceType: 'kafka.t3.small' } }),
    expect: { 'services.msk.brokerInstanceType': 'kafka.m7g.large' },
    only: true,
  },
  'Graviton already chosen': {
    ask: 'lambda on arm64',
    expect: { 'services.lambda.enabled': true },
    only: true,
    says: /Lambda Architecture is "arm64", already Graviton/,
  },
  'Graviton with nothing in view lists the choices': {
    ask: 'running on Graviton',
    expect: {},
    only: true,
    says: /Graviton \(arm64\) is a choice of .*services\.eks\.nodeInstanceType.*services\.lambda\.architecture.*name the service/,
  },
  'Graviton and spot in one breath': {
    ask: 'eks on spot graviton nodes',
    expect: { 'services.eks.enabled': true, ...vpc, 'services.eks.nodeInstanceType': 'm7g.large', 'services.eks.nodeCapacityType': 'SPOT' },
    only: true,
  },
  'x86 back from Graviton': {
    ask: 'eks nodes on intel',
    draft: withServices({ ...on('vpc'), eks: { enabled: true, nodeInstanceType: 'm7g.large' } }),
    expect: { 'services.eks.nodeInstanceType': 't3.large' },
    only: true,
  },
  'spot nodes': {
    ask: 'use spot capacity for the nodes',
    draft: withServices(on('vpc', 'eks')),
    expect: { 'services.eks.nodeCapacityType': 'SPOT' },
    only: true,
  },
  'on demand, written apart': {
    ask: 'on demand nodes please',
    draft: withServices({ ...on('vpc'), eks: { enabled: true, nodeCapacityType: 'SPOT' } }),
    expect: { 'services.eks.nodeCapacityType': 'ON_DEMAND' },
    only: true,
  },
  'multiple availability zones': {
    ask: 'rds across multiple availability zones',
    expect: { 'services.rds.enabled': true, ...vpc, 'services.rds.multiAz': true },
    only: true,
  },
  'a standby': {
    ask: 'postgres with a standby',
    expect: { 'services.rds.enabled': true, ...vpc, 'services.rds.multiAz': true },
    only: true,
  },
  'serverless postgres is Aurora': {
    ask: 'serverless postgres',
    expect: { 'services.aurora.enabled': true, ...vpc },
    only: true,
    says: /RDS PostgreSQL \(`services\.rds`\) is the alternative/,
    saysNot: /Lambda/,
  },
  'a serverless function is Lambda': { ask: 'a serverless function', expect: { 'services.lambda.enabled': true }, only: true },
  'FIFO queue': {
    ask: 'a fifo queue',
    expect: { 'services.sqs.enabled': true, 'services.sqs.fifo': true },
    only: true,
  },
  'strict ordering on the topic': {
    ask: 'sns with strict ordering',
    expect: { 'services.sns.enabled': true, 'services.sns.fifo': true },
    only: true,
  },
  'FIFO without a service is asked about': {
    ask: 'fifo',
    expect: {},
    only: true,
    says: /services\.sns\.fifo.*services\.sqs\.fifo.*Name the service/,
  },
  'KMS by its customer-managed key': {
    ask: 'encrypt the bucket with a customer managed key',
    draft: withServices({ s3: { enabled: true, encryption: 'AES256' } }),
    expect: { 'services.s3.encryption': 'aws:kms' },
    only: true,
  },
  'k8s, a word the template declares': {
    ask: 'a k8s cluster with 3 to 5 nodes',
    expect: {
      'services.eks.enabled': true,
      ...vpc,
      'services.eks.nodeMinSize': 3,
      'services.eks.nodeMaxSize': 5,
      'services.eks.nodeDesiredSize': 3,
    },
    only: true,
  },
}

const PARTS: Record<string, Case> = {
  'a part that matches nothing is said': {
    ask: 'enable sqs and a flux capacitor',
    expect: { 'services.sqs.enabled': true },
    only: true,
    says: /I did not act on "a flux capacitor": nothing in the catalog matches it\./,
  },
  'two parts that match nothing': {
    ask: 'rds with 30 days of backups, a blockchain ledger, and a quantum tunnel',
    expect: { 'services.rds.enabled': true, ...vpc, 'services.rds.backupRetentionDays': 30 },
    only: true,
    says: /I did not act on "a blockchain ledger", "a quantum tunnel": nothing in the catalog matches them\./,
  },
  'politeness is not reported': {
    ask: 'enable sqs, thanks',
    expect: { 'services.sqs.enabled': true },
    only: true,
    saysNot: /did not act/,
  },
  'a general wish is not reported as unread': {
    ask: 'rds with two weeks of backups, and make it highly available',
    expect: {
      'services.rds.enabled': true,
      ...vpc,
      'services.rds.backupRetentionDays': 14,
      'services.rds.multiAz': true,
      'services.vpc.singleNatGateway': false,
    },
    only: true,
    saysNot: /did not act/,
  },
  'a place, a unit and a miss together': {
    ask: 'move to Paris, keep sqs messages for 2 days and add a mainframe',
    expect: { region: 'eu-west-3', 'services.sqs.enabled': true, 'services.sqs.messageRetentionSeconds': 172800 },
    only: true,
    says: /I did not act on "add a mainframe"/,
  },
}

t.test('the built-in assistant on the words engineers use', async (t) => {
  const cases = { ...UNITS, ...PLACES, ...VOCABULARY, ...PARTS }
  t.ok(Object.keys(cases).length >= 40, `${Object.keys(cases).length} requests`)
  await runRequestCases(t, cases)
})
