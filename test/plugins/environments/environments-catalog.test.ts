// POST and PUT /api/environments check the values they set against the current service catalog (the
// one GET /api/catalog serves, through the same cache): every kind of violation, several at once and
// together with schema errors (each field named once), what is accepted (typed values, unknown keys
// and fields, other providers), a patch on an environment whose stored values are stale, a catalog
// read the clients' way (unknown type is text, hidden service still checked, a catastrophic pattern
// dropped), and a catalog that cannot be obtained or is of another schema version (accepted, with a
// warning in the log).
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../harness/app.ts'
import { startProcessorService } from '../../harness/processor-service.ts'
import { api, fieldsOf } from '../helpers.ts'
import { logLines } from '../../harness/log-lines.ts'
import { serveCatalogDocument } from '../../harness/catalog-document-server.ts'

const base = { name: 'cat-env', globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', domain: 'example.com' }
const DOMAIN_PATTERN = '^(([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.])+[a-z]{2,63})?$'

type Detail = { field: string; message: string }
const sorted = (details: Detail[] = []) => [...details].sort((a, b) => a.field.localeCompare(b.field))

t.test('environment writes against the bundled catalog', async (t) => {
  const ctx = await startTestApp(t)
  const a = api(ctx)
  let n = 0
  const unique = () => `cat-${++n}`
  const count = async () => (await a.listEnvs('dev')).body.pagination.total

  t.test('the reproduced case: every problem in one 400, nothing stored', async (t) => {
    const before = await count()
    const res = await a.createEnv('dev', {
      ...base,
      name: unique(),
      domain: 'Example.COM',
      services: { eks: { enabled: true, nodeMinSize: 'abc' }, vpc: { enabled: true, azCount: '7' } },
    })
    t.equal(res.status, 400, res.raw)
    t.equal(res.body.error.code, 'VALIDATION_ERROR')
    t.same(sorted(res.body.error.details), [
      { field: 'domain', message: `is not in the expected form (pattern ${DOMAIN_PATTERN})` },
      { field: 'services.eks.nodeMinSize', message: 'must be a number' },
      { field: 'services.vpc.azCount', message: 'must be one of: 2, 3' },
    ])
    t.equal(await count(), before, 'nothing stored')
  })

  t.test('each kind of violation on create names its field', async (t) => {
    const cases: Array<[string, Record<string, unknown>, Detail]> = [
      [
        'number as text',
        { services: { eks: { enabled: true, nodeMinSize: 'abc' } } },
        { field: 'services.eks.nodeMinSize', message: 'must be a number' },
      ],
      [
        'number written as a string',
        { services: { eks: { enabled: true, nodeDiskSize: '50' } } },
        { field: 'services.eks.nodeDiskSize', message: 'must be a number' },
      ],
      [
        'number against its pattern',
        { services: { eks: { enabled: true, nodeMaxSize: 0 } } },
        { field: 'services.eks.nodeMaxSize', message: 'must be a whole number of 1 or more (pattern ^[1-9][0-9]*$)' },
      ],
      [
        'number with a fraction the pattern refuses',
        { services: { aurora: { enabled: true, minCapacity: 0.25 } } },
        { field: 'services.aurora.minCapacity', message: 'must be a whole number or a half, such as 2 or 0.5 (pattern ^[0-9]+([.]5)?$)' },
      ],
      [
        'dropdown value not an option',
        { services: { vpc: { enabled: true, azCount: 7 } } },
        { field: 'services.vpc.azCount', message: 'must be one of: 2, 3' },
      ],
      [
        'dropdown option value as a string',
        { services: { vpc: { enabled: true, azCount: '3' } } },
        { field: 'services.vpc.azCount', message: 'must be one of: 2, 3' },
      ],
      [
        'dropdown text option in another case',
        { services: { eks: { enabled: true, nodeCapacityType: 'spot' } } },
        { field: 'services.eks.nodeCapacityType', message: 'must be one of: "ON_DEMAND", "SPOT"' },
      ],
      [
        'toggle as a string',
        { services: { vpc: { enabled: true, flowLogs: 'true' } } },
        { field: 'services.vpc.flowLogs', message: 'must be true or false' },
      ],
      [
        'enabled as a string',
        { services: { vpc: { enabled: 'true' } } },
        { field: 'services.vpc.enabled', message: 'must be true or false' },
      ],
      ['enabled as a number', { services: { vpc: { enabled: 1 } } }, { field: 'services.vpc.enabled', message: 'must be true or false' }],
      [
        'enabled of an unknown service as a string',
        { services: { quantum: { enabled: 'false' } } },
        { field: 'services.quantum.enabled', message: 'must be true or false' },
      ],
      [
        'text given a number',
        { services: { sqs: { enabled: true, queueName: 5 } } },
        { field: 'services.sqs.queueName', message: 'must be text' },
      ],
      [
        'text given a list',
        { services: { ecr: { enabled: true, repositoryNames: ['app', 'api'] } } },
        { field: 'services.ecr.repositoryNames', message: 'must be text' },
      ],
      [
        'text against its pattern',
        { services: { s3: { enabled: true, bucketSuffix: 'Data_Bucket' } } },
        {
          field: 'services.s3.bucketSuffix',
          message:
            'must be 1 to 20 characters: lowercase letters, digits and hyphens, starting with a lowercase letter or a digit (pattern ^[a-z0-9][a-z0-9-]{0,19}$)',
        },
      ],
      [
        'null is no value in a create',
        { services: { eks: { enabled: true, nodeMinSize: null } } },
        { field: 'services.eks.nodeMinSize', message: 'must be a number' },
      ],
      [
        'domain the API accepts but the catalog does not',
        { domain: 'Shop.Example.com' },
        { field: 'domain', message: `is not in the expected form (pattern ${DOMAIN_PATTERN})` },
      ],
      [
        'region the API accepts but the catalog does not',
        { region: 'local' },
        { field: 'region', message: 'is not in the expected form, like "eu-west-1" (pattern ^[a-z]{2}(-[a-z]+)+-[0-9]$)' },
      ],
    ]
    for (const [name, fields, detail] of cases) {
      const res = await a.createEnv('dev', { ...base, name: unique(), ...fields })
      t.equal(res.status, 400, `${name}: ${res.raw}`)
      t.equal(res.body.error?.code, 'VALIDATION_ERROR', name)
      t.same(res.body.error?.details, [detail], name)
    }
  })

  t.test('relations between fields (atLeast= / atMost= in the templates) name the field and the bound', async (t) => {
    const contradictory = await a.createEnv('dev', {
      ...base,
      name: unique(),
      services: { eks: { enabled: true, nodeMinSize: 10, nodeMaxSize: 5 } },
    })
    t.equal(contradictory.status, 400, contradictory.raw)
    t.same(contradictory.body.error?.details, [
      { field: 'services.eks.nodeMinSize', message: 'must be at most Maximum nodes (5); it is 10' },
      { field: 'services.eks.nodeDesiredSize', message: 'must be at least Minimum nodes (10); it is 2' },
    ])
    const retention = await a.createEnv('dev', { ...base, name: unique(), services: { rds: { enabled: true, backupRetentionDays: 40 } } })
    t.same(retention.body.error?.details, [{ field: 'services.rds.backupRetentionDays', message: 'must be at most 35; it is 40' }])
    const storage = await a.createEnv('dev', { ...base, name: unique(), services: { rds: { enabled: true, allocatedStorage: 200 } } })
    t.same(storage.body.error?.details, [
      { field: 'services.rds.allocatedStorage', message: 'must be at most Storage autoscaling limit (GiB) (100); it is 200' },
    ])
    const disabled = await a.createEnv('dev', {
      ...base,
      name: unique(),
      services: { eks: { enabled: false, nodeMinSize: 10, nodeMaxSize: 5 } },
    })
    t.equal(disabled.status, 201, `a disabled service is not judged: ${disabled.raw}`)

    const created = await a.createEnv('dev', {
      ...base,
      name: unique(),
      services: { eks: { enabled: true, nodeMinSize: 2, nodeMaxSize: 5 } },
    })
    t.equal(created.status, 201, created.raw)
    const id = created.body.data.id
    const patched = await a.putEnv('dev', id, { services: { eks: { nodeMaxSize: 1 } } })
    t.equal(patched.status, 400, patched.raw)
    t.same(patched.body.error?.details, [
      { field: 'services.eks.nodeMinSize', message: 'must be at most Maximum nodes (1); it is 2' },
      { field: 'services.eks.nodeDesiredSize', message: 'must be at most Maximum nodes (1); it is 2' },
    ])
    const stored = await a.getEnv('dev', id)
    t.equal(stored.body.data.services.eks.nodeMaxSize, 5, 'nothing stored is lost')
  })

  t.test('schema errors and catalog findings together, each field once', async (t) => {
    const res = await a.createEnv('dev', {
      ...base,
      name: 'Bad Name',
      domain: 'not a domain',
      services: { eks: { enabled: 'maybe', nodeMinSize: 'abc', nested: { a: 1 } }, vpc: { enabled: true, azCount: 4 } },
    })
    t.equal(res.status, 400, res.raw)
    const fields = fieldsOf(res.body)
    t.same([...fields].sort(), [
      'domain',
      'name',
      'services.eks.enabled',
      'services.eks.nested',
      'services.eks.nodeMinSize',
      'services.vpc.azCount',
    ])
    t.equal(new Set(fields).size, fields.length, 'no field twice')
    const domain = res.body.error.details.find((d: Detail) => d.field === 'domain')
    t.notMatch(domain.message, /pattern \^\(\(/, 'the domain is reported by the API schema, not again by the catalog')
  })

  t.test('typed values, unknown keys and fields, and other providers are accepted', async (t) => {
    const services = {
      vpc: { enabled: true, cidr: '10.1.0.0/16', azCount: 2, singleNatGateway: false, flowLogs: true, flowLogRetentionDays: 90 },
      eks: {
        enabled: true,
        kubernetesVersion: '1.35',
        nodeCapacityType: 'SPOT',
        nodeMinSize: 0,
        nodeMaxSize: 10,
        nodeDesiredSize: 3,
        nodeDiskSize: 100,
      },
      aurora: { enabled: false, minCapacity: 0.5, maxCapacity: 8 },
      sns: { enabled: true, topicName: 'alerts', alertEmail: '' },
      quantum: { enabled: true, qubits: 8 },
    }
    let res = await a.createEnv('dev', { ...base, name: unique(), services: { ...services, eks: { ...services.eks, legacyKnob: 'kept' } } })
    t.equal(res.status, 201, res.raw)
    t.same(
      res.body.data.services,
      { ...services, eks: { ...services.eks, legacyKnob: 'kept' } },
      'stored as sent, unknown service and field included',
    )

    res = await a.createEnv('dev', {
      ...base,
      name: unique(),
      provider: 'azure',
      region: 'westeurope',
      domain: 'Example.COM',
      services: { eks: { enabled: true, nodeMinSize: 'abc' } },
    })
    t.equal(res.status, 201, `the catalog is the AWS stack's: an azure environment is not checked against it: ${res.raw}`)
    res = await a.createEnv('dev', { ...base, name: unique(), provider: 'gcp', services: { eks: { enabled: 'true' } } })
    t.equal(res.status, 400, 'enabled is a boolean for every provider')
    t.same(res.body.error.details, [{ field: 'services.eks.enabled', message: 'must be true or false' }])
    res = await a.createEnv('dev', { ...base, name: unique(), domain: null })
    t.equal(res.status, 201, `domain: null is "no domain" (the schema's reading): ${res.raw}`)
    t.equal(res.body.data.domain, '')
  })

  t.test('PUT checks only the values it changes; stale stored values stay editable', async (t) => {
    const created = (
      await a.createEnv('dev', {
        ...base,
        name: 'stale',
        services: { vpc: { enabled: true, azCount: 3 }, eks: { enabled: true, nodeMinSize: 2 } },
      })
    ).body.data
    const rawServices = async () =>
      (await ctx.db.client
        .db()
        .collection('environments')
        .findOne({ _id: created.id as never }))!.services
    t.same(JSON.parse(await rawServices()), created.services, 'the settings are stored as one text (stored-form.ts)')
    // Stored under an older catalog: values the current one refuses, and a field it no longer has;
    // `services` as nested documents, as records were stored before they took the text form (stored-form.ts).
    await ctx.db.client
      .db()
      .collection('environments')
      .updateOne(
        { _id: created.id as never },
        {
          $set: {
            domain: 'Old.Example.com',
            services: { vpc: { enabled: true, azCount: 4 }, eks: { enabled: true, nodeMinSize: '2', retiredKnob: 'x' } },
          },
        },
      )

    let res = await a.putEnv('dev', created.id, { services: { eks: { nodeMaxSize: 6 } } })
    t.equal(res.status, 200, `a valid path on a stale environment: ${res.raw}`)
    t.match(
      res.body.data.services,
      { vpc: { azCount: 4 }, eks: { nodeMinSize: '2', nodeMaxSize: 6, retiredKnob: 'x' } },
      'the stale values are kept',
    )
    t.type(await rawServices(), 'string', 'a record read in the nested form is written in the text form')

    // A client that sends the whole environment back (the wizard's merge patch) with one change.
    const whole = res.body.data
    res = await a.putEnv('dev', created.id, {
      region: whole.region,
      domain: whole.domain,
      services: { ...whole.services, eks: { ...whole.services.eks, nodeDiskSize: 80 } },
    })
    t.equal(res.status, 200, `unchanged stale values sent back are not checked again: ${res.raw}`)
    t.equal(res.body.data.services.eks.nodeDiskSize, 80)

    res = await a.putEnv('dev', created.id, { services: { eks: { retiredKnob: null, nodeMinSize: null } } })
    t.equal(res.status, 200, 'removing stale values')
    t.notOk('retiredKnob' in res.body.data.services.eks)

    const stored = (await a.getEnv('dev', created.id)).body.data
    res = await a.putEnv('dev', created.id, {
      domain: 'New.Example.com',
      services: { vpc: { azCount: 5, flowLogs: 'no' }, eks: { nodeMaxSize: '6' }, rds: { enabled: true, instanceClass: 'db.huge' } },
    })
    t.equal(res.status, 400, res.raw)
    t.same(sorted(res.body.error.details), [
      { field: 'domain', message: `is not in the expected form (pattern ${DOMAIN_PATTERN})` },
      { field: 'services.eks.nodeMaxSize', message: 'must be a number' },
      { field: 'services.rds.instanceClass', message: 'must be one of: "db.t4g.micro", "db.t4g.medium", "db.m7g.large", "db.r7g.large"' },
      { field: 'services.vpc.azCount', message: 'must be one of: 2, 3' },
      { field: 'services.vpc.flowLogs', message: 'must be true or false' },
    ])
    t.same((await a.getEnv('dev', created.id)).body.data, stored, 'a refused patch changes nothing')

    res = await a.putEnv('dev', created.id, { domain: 'new.example.com', services: { vpc: { azCount: 2 } } })
    t.equal(res.status, 200, `fixing the stale values: ${res.raw}`)
  })

  t.test('PUT: catalog findings with schema errors and other rules', async (t) => {
    const created = (await a.createEnv('dev', { ...base, name: unique(), services: { eks: { enabled: true } } })).body.data
    let res = await a.putEnv('dev', created.id, { region: null, services: { eks: { nodeMinSize: 'x' } } })
    t.same(sorted(res.body.error?.details), [
      { field: 'region', message: 'is required' },
      { field: 'services.eks.nodeMinSize', message: 'must be a number' },
    ])
    res = await a.putEnv('dev', created.id, {
      helmCharts: { argo: { enabled: true, values: '{' } },
      services: { eks: { enabled: 'true' } },
    })
    t.same(
      fieldsOf(res.body).sort(),
      ['helmCharts.argo.values', 'services.eks.enabled'],
      'the enabled coercion of the schema does not hide it',
    )
  })

  t.test('PUT that makes an environment aws checks every value', async (t) => {
    const created = (
      await a.createEnv('dev', { ...base, name: unique(), provider: 'azure', services: { eks: { enabled: true, nodeMinSize: 'abc' } } })
    ).body.data
    t.equal(created.provider, 'azure')
    let res = await a.putEnv('dev', created.id, { region: 'westeurope' })
    t.equal(res.status, 200, 'azure: not checked')
    res = await a.putEnv('dev', created.id, { provider: 'aws' })
    t.equal(res.status, 400, res.raw)
    t.same(sorted(res.body.error.details), [
      { field: 'region', message: 'is not in the expected form, like "eu-west-1" (pattern ^[a-z]{2}(-[a-z]+)+-[0-9]$)' },
      { field: 'services.eks.nodeMinSize', message: 'must be a number' },
    ])
    res = await a.putEnv('dev', created.id, { provider: 'aws', region: 'eu-west-1', services: { eks: { nodeMinSize: 1 } } })
    t.equal(res.status, 200, res.raw)
  })
})

t.test('a catalog from a processor: shared cache, read like the clients read it', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-env-catalog-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(path.join(BUNDLED_TEMPLATES_DIR, 'terraform/terraform.tfvars'), path.join(dir, 'terraform/terraform.tfvars'))
  await appendFile(
    path.join(dir, 'terraform/terraform.tfvars'),
    [
      '# @param services.eks.teamSize | displayName=Team size | type=slider | default=7',
      'team_size = 7',
      '# @param services.eks.teamTag | displayName=Team tag | type=text | pattern=^(a+)+$ | default=aaa',
      'team_tag = "aaa"',
      '# @module services.legacy | displayName=Legacy | available=false',
      '# @param services.legacy.size | displayName=Legacy size | type=number | default=1',
      'legacy_size = 1',
      '',
    ].join('\n'),
  )
  const processor = await startProcessorService({ catalogDir: dir })
  t.teardown(() => processor.stop())
  const { lines, logStream } = logLines()
  const ctx = await startTestApp(
    t,
    { PROCESSOR_URL: processor.url, PROCESSOR_SERVICE_TOKEN: processor.token, LOG_LEVEL: 'warn' },
    { logStream },
  )
  const a = api(ctx)
  const catalogRequests = () => processor.requests.filter((r) => r.path.startsWith('/catalog')).length

  t.equal((await a.call('dev', 'GET', '/api/catalog')).status, 200)
  t.equal(catalogRequests(), 1)
  let res = await a.createEnv('dev', { ...base, name: 'shared', services: { eks: { enabled: true, teamSize: '7' } } })
  t.equal(res.status, 201, `a field of an unknown type is text: ${res.raw}`)
  t.equal(catalogRequests(), 1, 'the write used the cached copy of GET /api/catalog')

  res = await a.createEnv('dev', { ...base, name: 'typed', services: { eks: { enabled: true, teamSize: 7 } } })
  t.same(
    res.body.error?.details,
    [{ field: 'services.eks.teamSize', message: 'must be text' }],
    'unknown type: text, so a number is refused',
  )

  res = await a.createEnv('dev', { ...base, name: 'hidden', services: { legacy: { enabled: true, size: 'big' } } })
  t.same(res.body.error?.details, [{ field: 'services.legacy.size', message: 'must be a number' }], 'a hidden service is still checked')

  res = await a.createEnv('dev', {
    ...base,
    name: 'unsafe',
    services: { eks: { enabled: true, teamTag: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab' } },
  })
  t.equal(res.status, 201, `a catastrophic pattern drops only its own check: ${res.raw}`)
  t.ok(
    lines.some((l) => /cannot be tested in bounded time/.test(l) && l.includes('services.eks.teamTag')),
    'and says so in the log',
  )
  res = await a.createEnv('dev', { ...base, name: 'unsafe-typed', services: { eks: { enabled: true, teamTag: 5 } } })
  t.same(res.body.error?.details, [{ field: 'services.eks.teamTag', message: 'must be text' }], 'the type is still checked')
})

t.test('catalog unavailable: the values are accepted, with a warning', async (t) => {
  // A loopback port that was free a moment ago and is closed now: connections are refused.
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
  const { lines, logStream } = logLines()
  const ctx = await startTestApp(
    t,
    { PROCESSOR_URL: `http://127.0.0.1:${port}`, PROCESSOR_SERVICE_TOKEN: 'svc-token', LOG_LEVEL: 'warn' },
    { logStream },
  )
  const a = api(ctx)
  t.equal((await a.call('dev', 'GET', '/api/catalog')).status, 503, 'no catalog')

  const res = await a.createEnv('dev', {
    ...base,
    name: 'no-catalog',
    domain: 'Example.COM',
    services: { eks: { enabled: true, nodeMinSize: 'abc' }, vpc: { enabled: true, azCount: '7' } },
  })
  t.equal(res.status, 201, res.raw)
  t.match(res.body.data.services, { eks: { nodeMinSize: 'abc' }, vpc: { azCount: '7' } })
  const warning = lines.map((l) => JSON.parse(l)).find((l) => /catalog unavailable; service values accepted/.test(l.msg))
  t.ok(warning, 'a warning is logged')
  t.equal(warning?.level, 40, 'at warn level')
  t.match(warning?.err?.message, /processor unreachable/)
  t.notMatch(JSON.stringify(lines), /svc-token/, 'the service token is not logged')

  const put = await a.putEnv('dev', res.body.data.id, { services: { eks: { nodeMaxSize: 'many' } } })
  t.equal(put.status, 200, 'a PUT too')
  const refused = await a.putEnv('dev', res.body.data.id, { services: { eks: { enabled: 'true' } } })
  t.same(refused.body.error?.details, [{ field: 'services.eks.enabled', message: 'must be true or false' }], 'enabled needs no catalog')
})

t.test('a catalog document of another schema version is not read: accepted, with a warning', async (t) => {
  const doc = {
    schemaVersion: 2,
    commit: 'c'.repeat(40),
    global: { fields: {} },
    services: { eks: { displayName: 'EKS', fields: { nodeMinSize: { type: 'number' } } } },
    errors: [],
  }
  const processorUrl = await serveCatalogDocument(t, doc)
  const { lines, logStream } = logLines()
  const ctx = await startTestApp(t, { PROCESSOR_URL: processorUrl, PROCESSOR_SERVICE_TOKEN: 'svc-token', LOG_LEVEL: 'warn' }, { logStream })
  const res = await api(ctx).createEnv('dev', { ...base, name: 'version-two', services: { eks: { enabled: true, nodeMinSize: 'abc' } } })
  t.equal(res.status, 201, res.raw)
  t.ok(
    lines.some((l) => /not a schemaVersion 1 document; service values accepted/.test(l)),
    'a warning is logged',
  )
})
