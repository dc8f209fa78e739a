// The environment diagram (processor-lib contract/diagram.ts): the Mermaid text of the bundled
// templates for every service on, a subset and none; the catalog carries the @module attributes it
// reads; the generated README holds it; a service an author adds is drawn with no code change.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildCatalog, extractCatalog, languageOf, processFiles, processTree } from '@ies/processor-lib'
import { catalogDiagramServices, environmentDiagram, parseConnects, type DiagramService } from '@ies/processor-lib/contract/diagram'
import { DIAGRAM_MARKER } from '@ies/processor-lib/readme-diagram'

const templatesDir = join(import.meta.dirname, '../../templates')
const on = (...keys: string[]) => Object.fromEntries(keys.map((k) => [k, { enabled: true }]))
const text = (content: string | Buffer | undefined) => (content === undefined ? '' : content.toString())

/** The services of the bundled templates, drawn as EVERY_SERVICE. */
const EVERY_SERVICE_KEYS = [
  'vpc',
  'eks',
  'rds',
  'aurora',
  'elasticache',
  'msk',
  'opensearch',
  's3',
  'sns',
  'sqs',
  'lambda',
  'cloudfront',
  'ecr',
  'route53',
  'waf',
]
const EVERY_SERVICE = `flowchart LR
  subgraph svc_vpc["VPC"]
    svc_eks[["EKS"]]
    svc_rds[("RDS PostgreSQL")]
    svc_aurora[("Aurora PostgreSQL")]
    svc_elasticache[("ElastiCache (Valkey)")]
    svc_msk>"MSK (Kafka)"]
    svc_opensearch[("OpenSearch")]
  end
  svc_s3[("S3")]
  svc_sns>"SNS"]
  svc_sqs>"SQS"]
  svc_lambda("Lambda")
  svc_cloudfront(["CloudFront"])
  svc_ecr[/"ECR"/]
  svc_route53(("Route53"))
  svc_waf{{"WAF"}}
  svc_eks -->|"pulls images"| svc_ecr
  svc_eks --> svc_rds
  svc_eks --> svc_aurora
  svc_eks --> svc_elasticache
  svc_eks --> svc_msk
  svc_eks --> svc_opensearch
  svc_route53 -->|"DNS name and certificate"| svc_cloudfront
  svc_waf -->|"protects"| svc_cloudfront
`

// No VPC: the cluster and the database are drawn on their own; WAF's line has no CloudFront to reach.
const SUBSET = `flowchart LR
  svc_eks[["EKS"]]
  svc_rds[("RDS PostgreSQL")]
  svc_ecr[/"ECR"/]
  svc_waf{{"WAF"}}
  svc_eks -->|"pulls images"| svc_ecr
  svc_eks --> svc_rds
`

const NONE = `flowchart LR
  none["No services enabled"]
`

t.test('the bundled templates: every service, a subset, none', async (t) => {
  const catalog = await extractCatalog({ templatesDir, provider: 'aws' })
  const services = catalogDiagramServices(catalog)
  // The drawing of the services above; a service an author adds is drawn too, one node of its own.
  t.equal(environmentDiagram(services, { services: on(...EVERY_SERVICE_KEYS) }), EVERY_SERVICE)
  const every = environmentDiagram(services, { services: on(...Object.keys(catalog.services)) })
  for (const key of Object.keys(catalog.services)) t.match(every, new RegExp(`^\\s+(subgraph )?svc_${key}\\W`, 'm'), `${key} is drawn`)
  t.equal(environmentDiagram(services, { services: on('eks', 'rds', 'ecr', 'waf') }), SUBSET)
  t.equal(environmentDiagram(services, { services: Object.fromEntries(services.map((s) => [s.key, { enabled: false }])) }), NONE)
  t.equal(environmentDiagram(services, {}), NONE, 'a configuration without services')
  t.equal(
    environmentDiagram(services, { services: { eks: { enabled: 'false' }, rds: { enabled: 0 }, s3: { enabled: 1 } } }),
    'flowchart LR\n  svc_eks[["EKS"]]\n  svc_s3[("S3")]\n',
    "enabled follows @section's falsy rule, as the generated files do",
  )
})

t.test('the catalog carries diagram, within and connects as written', async (t) => {
  const tfvars = [
    '# @module services.kms | displayName=KMS | diagram=firewall | within=vpc | connects=s3:encrypts, sqs',
    '# @module services.vpc | displayName=VPC | diagram=network',
    '# @module services.plain | displayName=Plain',
  ].join('\n')
  const catalog = buildCatalog('terraform/terraform.tfvars', tfvars, languageOf('x.tfvars')!, 'c')
  t.match(catalog.services.kms, { displayName: 'KMS', diagram: 'firewall', within: 'vpc', connects: 's3:encrypts, sqs' })
  t.same(Object.keys(catalog.services.plain), ['displayName', 'fields'], 'no attribute, no member')
  t.same(catalog.errors, [])
  t.same(parseConnects(catalog.services.kms.connects), [{ to: 's3', label: 'encrypts' }, { to: 'sqs' }])
})

t.test('labels, keys, nesting and lines a template may hold', async (t) => {
  const services: DiagramService[] = [
    { key: 'net', label: 'Net "A" <b>#1</b>', diagram: 'network' },
    { key: 'sub', label: 'Sub', diagram: 'network', within: 'net' },
    { key: 'app.v-2', label: 'App', within: 'sub', connects: 'db:reads: writes,ghost,app.v-2,off' },
    { key: 'db', label: 'DB', diagram: 'database', within: 'net' },
    { key: 'loop1', label: 'L1', within: 'loop2' },
    { key: 'loop2', label: 'L2', within: 'loop1' },
    { key: 'end', label: 'End', diagram: 'unknown-kind' },
    { key: 'off', label: 'Off' },
  ]
  t.equal(
    environmentDiagram(services, { services: on('net', 'sub', 'app.v-2', 'db', 'loop1', 'loop2', 'end') }),
    [
      'flowchart LR',
      '  subgraph svc_net["Net #quot;A#quot; #lt;b#gt;#35;1#lt;/b#gt;"]',
      '    subgraph svc_sub["Sub"]',
      '      svc_app_2e_v_2d_2["App"]',
      '    end',
      '    svc_db[("DB")]',
      '  end',
      '  svc_loop1["L1"]',
      '  svc_loop2["L2"]',
      '  svc_end["End"]',
      '  svc_app_2e_v_2d_2 -->|"reads: writes"| svc_db',
      '',
    ].join('\n'),
    'escaped labels, nested networks, a within loop drawn at the top, unknown kinds as boxes, lines only between enabled services',
  )
})

t.test('the generated README draws the configuration; without the parameter-values file it is left as is', async (t) => {
  const readme = await readFile(join(templatesDir, 'terraform/README.md'), 'utf8')
  t.match(readme, DIAGRAM_MARKER, 'the hand-over asks for the diagram')
  const result = await processTree({ templatesDir, config: { provider: 'aws', services: on('eks', 'rds', 'ecr', 'waf') } })
  t.ok(result.ok)
  const generated = text(result.files.find((f) => f.path === 'terraform/README.md')?.content)
  t.match(generated, '## What was generated\n\nThe services enabled in IES and how they connect:\n\n```mermaid\n' + SUBSET + '```\n')
  t.notMatch(generated, DIAGRAM_MARKER)

  const alone = processFiles([{ path: 'terraform/README.md', content: Buffer.from(readme), mode: 0o644 }], { services: on('eks') })
  t.equal(text(alone.files[0]?.content), readme, 'only the README selected: copied as it is')
})

t.test('a service an author adds is drawn with no code change', async (t) => {
  const copy = await mkdtemp(join(tmpdir(), 'ies-diagram-'))
  t.teardown(() => rm(copy, { recursive: true, force: true }))
  await cp(templatesDir, copy, { recursive: true })
  const tfvars = join(copy, 'terraform/terraform.tfvars')
  await writeFile(
    tfvars,
    (await readFile(tfvars, 'utf8')) +
      '\n# @module services.kms | displayName=KMS | category=Security | description=Customer managed keys | diagram=firewall | connects=s3:encrypts\n',
  )
  const result = await processTree({ templatesDir: copy, config: { provider: 'aws', services: on('kms', 's3') } })
  t.ok(result.ok)
  t.match(
    text(result.files.find((f) => f.path === 'terraform/README.md')?.content),
    '```mermaid\nflowchart LR\n  svc_s3[("S3")]\n  svc_kms{{"KMS"}}\n  svc_kms -->|"encrypts"| svc_s3\n```',
  )
})
