// /api/environments: every validation rule (valid and invalid values), status codes, list
// pagination/filter/sort, JSON Merge Patch updates, and user isolation.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { AWS_KEY, DEPLOY_KEY, api, fieldsOf } from '../helpers.ts'

const base = { name: 'my-env', globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1' }
const label = (n: number) => 'a'.repeat(n)

t.test('environments', async (t) => {
  const ctx = await startTestApp(t, { PUSH_ALLOWED_HOSTS: 'git.internal.test' })
  const a = api(ctx)
  const devCred = (await a.createCred('dev', { name: 'dev-aws', provider: 'aws', credentials: AWS_KEY })).body.data.id
  const devAzure = (
    await a.createCred('dev', {
      name: 'dev-azure',
      provider: 'azure',
      credentials: {
        subscriptionId: '11111111-2222-3333-4444-555555555555',
        tenantId: '11111111-2222-3333-4444-666666666666',
        clientId: '11111111-2222-3333-4444-777777777777',
        clientSecret: 'azure-client-secret-value',
      },
    })
  ).body.data.id
  const otherCred = (await a.createCred('other', { name: 'other-aws', provider: 'aws', credentials: AWS_KEY })).body.data.id

  let n = 0
  const unique = () => `env-${++n}`

  t.test('create: valid values are accepted and returned', async (t) => {
    const valid: Array<[string, Record<string, unknown>]> = [
      ['shortest name', { name: 'abc' }],
      ['name of 50 characters', { name: `a${'b'.repeat(49)}` }],
      ['name with digits and hyphens', { name: 'a1-b2-c3' }],
      ['prefix of 2 characters', { globalPrefix: 'ab' }],
      ['prefix of 20 characters', { globalPrefix: `a${'1'.repeat(19)}` }],
      ['prefix with a hyphen', { globalPrefix: 'acme-prod' }],
      ['provider azure', { provider: 'azure' }],
      ['provider gcp', { provider: 'gcp' }],
      ['provider onpremise', { provider: 'onpremise' }],
      ['region us-east-2', { region: 'us-east-2' }],
      ['empty domain', { domain: '' }],
      ['two-label domain', { domain: 'example.com' }],
      ['deep domain', { domain: 'apps.eu.example.co.uk' }],
      ['domain of 253 characters', { domain: `${[label(63), label(63), label(63), label(58)].join('.')}.io` }],
      ['unknown service key is stored', { services: { quantum: { enabled: true, qubits: 8, mode: 'fast', zones: ['a', 'b'] } } }],
      ['catalog services', { services: { eks: { enabled: true, nodeCount: 3 }, rds: { enabled: false } } }],
      [
        'helm chart with YAML values',
        { helmCharts: { 'argo-cd': { enabled: true, customValues: true, values: 'server:\n  replicas: 2\n' } } },
      ],
      ['helm chart with empty values', { helmCharts: { headlamp: { enabled: false, customValues: false, values: '' } } }],
      [
        'terraform backend',
        { terraformBackend: { bucket: 'acme-tf-state', key: 'state/aws.tfstate', useLockfile: true, region: 'eu-west-1' } },
      ],
      [
        'git repository',
        { gitRepository: { url: 'https://git.example.com/acme/infra.git', branch: 'main', branches: ['main', 'release/1.0'] } },
      ],
      ['git repository with deploy key', { gitRepository: { url: 'https://git.example.com/acme/infra.git', deployKey: DEPLOY_KEY } }],
      [
        'git repository with an access token as deploy key',
        { gitRepository: { url: 'https://git.example.com/acme/infra.git', deployKey: 'glpat-AbCdEf0123456789_xyz-' } },
      ],
      [
        'access token of 4096 characters',
        { gitRepository: { url: 'https://git.example.com/acme/infra.git', deployKey: 't'.repeat(4096) } },
      ],
      [
        'git url over http to a PUSH_ALLOWED_HOSTS host',
        { gitRepository: { url: 'http://git.internal.test/acme/infra.git', deployKey: 'token-123' } },
      ],
      ['own credential of the same provider', { cloudCredentialId: devCred }],
      ['own azure credential for an azure environment', { provider: 'azure', cloudCredentialId: devAzure }],
    ]
    for (const [name, fields] of valid) {
      const body = { ...base, name: unique(), ...fields }
      const res = await a.createEnv('dev', body)
      t.equal(res.status, 201, `${name}: ${res.raw}`)
      const env = res.body.data
      for (const [key, value] of Object.entries(fields)) {
        if (key === 'gitRepository') {
          const { deployKey, ...rest } = value as Record<string, unknown>
          t.match(env.gitRepository, { ...rest, hasDeployKey: Boolean(deployKey) }, name)
          t.notOk('deployKey' in env.gitRepository, `${name}: no deploy key in the response`)
        } else if (key === 'helmCharts' || key === 'services' || key === 'terraformBackend') {
          t.same(env[key], value, `${name}: ${key} returned as sent`)
        } else {
          t.equal(env[key], value, `${name}: ${key}`)
        }
      }
      t.equal(env.status, 'pending')
      t.notMatch(res.raw, /PRIVATE KEY/, `${name}: no key material`)
    }
  })

  t.test('create: every invalid value is a 400 naming the field', async (t) => {
    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['name missing', { name: undefined }, 'name'],
      ['name too short', { name: 'ab' }, 'name'],
      ['name with an uppercase letter', { name: 'Abc' }, 'name'],
      ['name starting with a digit', { name: '1abc' }, 'name'],
      ['name with an underscore', { name: 'abc_def' }, 'name'],
      ['name with a space', { name: 'abc def' }, 'name'],
      ['name of 51 characters', { name: `a${'b'.repeat(50)}` }, 'name'],
      ['name not a string', { name: { x: 1 } }, 'name'],
      ['prefix missing', { globalPrefix: undefined }, 'globalPrefix'],
      ['prefix of 1 character', { globalPrefix: 'a' }, 'globalPrefix'],
      ['prefix of 21 characters', { globalPrefix: `a${'1'.repeat(20)}` }, 'globalPrefix'],
      ['prefix with an uppercase letter', { globalPrefix: 'Acme' }, 'globalPrefix'],
      ['prefix starting with a digit', { globalPrefix: '1acme' }, 'globalPrefix'],
      ['prefix ending with a hyphen', { globalPrefix: 'acme-' }, 'globalPrefix'],
      ['prefix with a double hyphen', { globalPrefix: 'ac--me' }, 'globalPrefix'],
      ['prefix with a dot', { globalPrefix: 'ac.me' }, 'globalPrefix'],
      ['provider missing', { provider: undefined }, 'provider'],
      ['unknown provider', { provider: 'digitalocean' }, 'provider'],
      ['region missing', { region: undefined }, 'region'],
      ['empty region', { region: '' }, 'region'],
      ['region with uppercase letters', { region: 'EU-WEST-1' }, 'region'],
      ['region with an underscore', { region: 'eu_west_1' }, 'region'],
      ['domain of one label', { domain: 'localhost' }, 'domain'],
      ['domain with a numeric TLD', { domain: 'example.123' }, 'domain'],
      ['domain with a space', { domain: 'exa mple.com' }, 'domain'],
      ['domain label starting with a hyphen', { domain: '-bad.example.com' }, 'domain'],
      ['domain label of 64 characters', { domain: `${label(64)}.com` }, 'domain'],
      ['domain of 254 characters', { domain: `${[label(63), label(63), label(63), label(59)].join('.')}.io` }, 'domain'],
      ['domain with a trailing dot', { domain: 'example.com.' }, 'domain'],
      ['services not an object', { services: ['eks'] }, 'services'],
      ['service not an object', { services: { eks: true } }, 'services.eks'],
      ['service without enabled', { services: { eks: { nodeCount: 3 } } }, 'services.eks.enabled'],
      ['service enabled not a boolean', { services: { eks: { enabled: 'maybe' } } }, 'services.eks.enabled'],
      ['service field that is an object', { services: { eks: { enabled: true, nested: { a: 1 } } } }, 'services.eks.nested'],
      ['service key with a dollar', { services: { $where: { enabled: true } } }, 'services'],
      ['service key with a dot', { services: { 'a.b': { enabled: true } } }, 'services'],
      [
        'helm values that are not YAML',
        { helmCharts: { argo: { enabled: true, customValues: true, values: 'a: [1, 2' } } },
        'helmCharts.argo.values',
      ],
      ['helm values not a string', { helmCharts: { argo: { enabled: true, values: { a: 1 } } } }, 'helmCharts.argo.values'],
      ['helm chart without enabled', { helmCharts: { argo: { values: '' } } }, 'helmCharts.argo.enabled'],
      ['terraform bucket with uppercase letters', { terraformBackend: { bucket: 'Acme-State' } }, 'terraformBackend.bucket'],
      ['terraform useLockfile not a boolean', { terraformBackend: { useLockfile: 'sometimes' } }, 'terraformBackend.useLockfile'],
      [
        'git url over http to a host PUSH_ALLOWED_HOSTS does not name',
        { gitRepository: { url: 'http://git.example.com/acme/infra.git' } },
        'gitRepository.url',
      ],
      ['git url over ssh', { gitRepository: { url: 'git@git.example.com:acme/infra.git' } }, 'gitRepository.url'],
      [
        'git url on a loopback address (refused at push time, so at save time)',
        { gitRepository: { url: 'https://127.0.0.1/a.git' } },
        'gitRepository.url',
      ],
      ['git url on a private address', { gitRepository: { url: 'https://10.1.2.3/a.git' } }, 'gitRepository.url'],
      ['git url on an IPv4-mapped loopback address', { gitRepository: { url: 'https://[::ffff:127.0.0.1]/a.git' } }, 'gitRepository.url'],
      ['git url naming localhost', { gitRepository: { url: 'https://localhost/a.git' } }, 'gitRepository.url'],
      ['git repository without url', { gitRepository: { branch: 'main' } }, 'gitRepository.url'],
      ['git branch with ..', { gitRepository: { url: 'https://git.example.com/a.git', branch: 'a..b' } }, 'gitRepository.branch'],
      [
        'deploy key with whitespace (neither a PEM key nor a token)',
        { gitRepository: { url: 'https://git.example.com/a.git', deployKey: 'top-secret-not-a-key and more' } },
        'gitRepository.deployKey',
      ],
      ['empty deploy key', { gitRepository: { url: 'https://git.example.com/a.git', deployKey: '' } }, 'gitRepository.deployKey'],
      [
        'access token over 4096 characters',
        { gitRepository: { url: 'https://git.example.com/a.git', deployKey: 'top-secret-not-a-key' + 't'.repeat(4096) } },
        'gitRepository.deployKey',
      ],
      [
        'git url carrying credentials',
        { gitRepository: { url: 'https://user:top-secret-not-a-key@git.example.com/a.git' } },
        'gitRepository.url',
      ],
      ['malformed credential id', { cloudCredentialId: 'abc' }, 'cloudCredentialId'],
      ['unknown credential id', { cloudCredentialId: '00000000-0000-4000-8000-000000000000' }, 'cloudCredentialId'],
      ["another user's credential", { cloudCredentialId: otherCred }, 'cloudCredentialId'],
      ['credential of another provider', { cloudCredentialId: devAzure }, 'cloudCredentialId'],
    ]
    const before = (await a.listEnvs('dev')).body.pagination.total
    for (const [name, fields, field] of invalid) {
      const body = { ...base, name: unique(), ...fields }
      const res = await a.createEnv('dev', JSON.parse(JSON.stringify(body)))
      t.equal(res.status, 400, `${name}: ${res.raw}`)
      t.equal(res.body.error?.code, 'VALIDATION_ERROR', name)
      t.ok(fieldsOf(res.body).includes(field), `${name}: details name ${field}: ${JSON.stringify(res.body.error?.details)}`)
      t.notMatch(res.raw, /top-secret-not-a-key/, `${name}: the submitted secret is not echoed`)
    }
    t.equal((await a.listEnvs('dev')).body.pagination.total, before, 'nothing invalid was stored')
  })

  t.test('create: configuration is discarded, status is always pending, ids are assigned', async (t) => {
    const res = await a.createEnv('dev', {
      ...base,
      name: 'discarded',
      configuration: { anything: true },
      status: 'running',
      id: '00000000-0000-4000-8000-000000000000',
      createdAt: '2000-01-01T00:00:00.000Z',
    })
    t.equal(res.status, 201, res.raw)
    const env = res.body.data
    t.notOk('configuration' in env)
    t.equal(env.status, 'pending')
    t.not(env.id, '00000000-0000-4000-8000-000000000000')
    t.not(env.createdAt, '2000-01-01T00:00:00.000Z')
    t.equal(env.domain, '', 'no domain reads as ""')
    t.same(env.services, {})
    t.same(env.helmCharts, {})
    const raw = await ctx.db.client
      .db()
      .collection('environments')
      .findOne({ _id: env.id as never })
    t.notOk(raw && 'configuration' in raw, 'not stored either')
    t.same((await a.getEnv('dev', env.id)).body.data, env, 'GET returns what POST returned')
  })

  t.test('create: duplicate names are 409, also under concurrency; other users may reuse a name', async (t) => {
    t.equal((await a.createEnv('dev', { ...base, name: 'dupe' })).status, 201)
    const again = await a.createEnv('dev', { ...base, name: 'dupe', globalPrefix: 'other' })
    t.equal(again.status, 409)
    t.equal(again.body.error.code, 'CONFLICT')
    t.equal((await a.createEnv('other', { ...base, name: 'dupe' })).status, 201, 'names are per user')
    const racing = await Promise.all(Array.from({ length: 6 }, () => a.createEnv('dev', { ...base, name: 'racing' })))
    t.same(racing.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409], 'exactly one concurrent create wins')
  })

  t.test('read and delete: 200, 204, 404 for missing, malformed and foreign ids', async (t) => {
    const env = (await a.createEnv('dev', { ...base, name: 'to-delete' })).body.data
    t.equal((await a.getEnv('dev', env.id)).status, 200)
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '%24where', '1']) {
      const res = await a.getEnv('dev', id)
      t.equal(res.status, 404, `GET ${id}`)
      t.equal(res.body.error.code, 'NOT_FOUND')
      t.equal(res.body.error.message, 'Environment not found')
      t.equal((await a.putEnv('dev', id, { domain: '' })).status, 404, `PUT ${id}`)
      t.equal((await a.deleteEnv('dev', id)).status, 404, `DELETE ${id}`)
    }
    const other = await a.getEnv('other', env.id)
    t.equal(other.status, 404, "another user's environment does not exist for them")
    t.same(other.body.error, { code: 'NOT_FOUND', message: 'Environment not found' })
    t.equal((await a.putEnv('other', env.id, { domain: 'x.com' })).status, 404)
    t.equal((await a.deleteEnv('other', env.id)).status, 404)
    t.equal((await a.getEnv('dev', env.id)).body.data.domain, '', 'untouched by the other user')

    const del = await a.deleteEnv('dev', env.id)
    t.equal(del.status, 204)
    t.equal(del.raw, '')
    t.equal((await a.getEnv('dev', env.id)).status, 404)
    t.equal((await a.deleteEnv('dev', env.id)).status, 404)
    t.equal((await ctx.app.inject({ method: 'GET', url: `/api/environments/${env.id}` })).statusCode, 401, 'no token')
    t.equal((await a.call('dev', 'GET', `/api/environments/${env.id}/export`)).status, 404, 'no export route')
  })

  t.test('update: JSON Merge Patch', async (t) => {
    const created = (
      await a.createEnv('dev', {
        ...base,
        name: 'patched',
        domain: 'example.com',
        services: { eks: { enabled: true, nodeCount: 3, instanceType: 'm5.large' }, rds: { enabled: true } },
        helmCharts: { argo: { enabled: true, customValues: false, values: 'a: 1' } },
        gitRepository: { url: 'https://git.example.com/a.git', branch: 'main', deployKey: DEPLOY_KEY },
        terraformBackend: { bucket: 'acme-state', useLockfile: true },
        cloudCredentialId: devCred,
      })
    ).body.data
    const put = (body: unknown) => a.putEnv('dev', created.id, body)

    let res = await put({ services: { eks: { nodeCount: 5 } } })
    t.equal(res.status, 200, res.raw)
    let env = res.body.data
    t.same(env.services, { eks: { enabled: true, nodeCount: 5, instanceType: 'm5.large' }, rds: { enabled: true } }, 'nested objects merge')
    t.equal(env.domain, 'example.com', 'omitted fields are kept')
    t.same(env.helmCharts, created.helmCharts)
    t.equal(env.gitRepository.hasDeployKey, true, 'the deploy key is kept')
    t.equal(env.cloudCredentialId, devCred)
    t.ok(env.updatedAt > created.updatedAt, 'updatedAt moves')
    t.equal(env.createdAt, created.createdAt)

    res = await put({ services: { rds: null, eks: { instanceType: null } }, domain: null, terraformBackend: null, cloudCredentialId: null })
    env = res.body.data
    t.same(env.services, { eks: { enabled: true, nodeCount: 5 } }, 'null removes members at any depth')
    t.equal(env.domain, '', 'a removed domain reads as ""')
    t.notOk('terraformBackend' in env)
    t.notOk('cloudCredentialId' in env)

    res = await put({ gitRepository: { branch: 'develop' }, helmCharts: { argo: { values: 'a: 2' }, headlamp: { enabled: false } } })
    env = res.body.data
    t.same(
      env.gitRepository,
      { url: 'https://git.example.com/a.git', branch: 'develop', hasDeployKey: true },
      'key kept across a repository edit',
    )
    t.same(env.helmCharts, {
      argo: { enabled: true, customValues: false, values: 'a: 2' },
      headlamp: { enabled: false, customValues: false, values: '' },
    })

    res = await put({
      name: 'patched',
      globalPrefix: 'acme',
      provider: 'aws',
      configuration: { x: 1 },
      status: 'running',
      id: 'x',
      hasDeployKey: false,
    })
    t.equal(res.status, 200, 'the same immutable values are accepted; extras dropped')
    t.equal(res.body.data.status, 'pending')
    t.equal(res.body.data.id, created.id)

    res = await put({ gitRepository: { deployKey: null } })
    t.equal(res.body.data.gitRepository.hasDeployKey, false, 'null removes the deploy key')
    res = await put({ gitRepository: { deployKey: DEPLOY_KEY } })
    t.equal(res.body.data.gitRepository.hasDeployKey, true, 'a new key can be set')
    t.notMatch(res.raw, /PRIVATE KEY/)
    res = await put({ gitRepository: null })
    t.notOk('gitRepository' in res.body.data, 'null removes the repository and its key')
    const raw = await ctx.db.client
      .db()
      .collection('environments')
      .findOne({ _id: created.id as never })
    t.notOk(raw?.deployKey, 'the encrypted key is gone from the record')
  })

  t.test('update: invalid patches are 400 and change nothing', async (t) => {
    const created = (
      await a.createEnv('dev', {
        ...base,
        name: 'guarded',
        domain: 'example.com',
        services: { eks: { enabled: true } },
        cloudCredentialId: devCred,
      })
    ).body.data
    const bad: Array<[string, unknown, string]> = [
      ['a different name', { name: 'renamed' }, 'name'],
      ['a removed name', { name: null }, 'name'],
      ['a different prefix', { globalPrefix: 'other' }, 'globalPrefix'],
      ['an invalid domain', { domain: 'nodot' }, 'domain'],
      ['removing a required field', { region: null }, 'region'],
      ['a service without enabled after the merge', { services: { eks: { enabled: null } } }, 'services.eks.enabled'],
      ['a new service without enabled', { services: { rds: { size: 'small' } } }, 'services.rds.enabled'],
      ['broken chart YAML', { helmCharts: { argo: { enabled: true, values: '{' } } }, 'helmCharts.argo.values'],
      ["another user's credential", { cloudCredentialId: otherCred }, 'cloudCredentialId'],
      ['a provider the credential does not match', { provider: 'azure' }, 'cloudCredentialId'],
      [
        'an invalid deploy key',
        { gitRepository: { url: 'https://git.example.com/a.git', deployKey: 'top-secret-not-a-key with spaces' } },
        'gitRepository.deployKey',
      ],
      [
        'an http:// URL to a host PUSH_ALLOWED_HOSTS does not name',
        { gitRepository: { url: 'http://git.example.com/a.git' } },
        'gitRepository.url',
      ],
    ]
    for (const [name, patch, field] of bad) {
      const res = await a.putEnv('dev', created.id, patch)
      t.equal(res.status, 400, `${name}: ${res.raw}`)
      t.equal(res.body.error.code, 'VALIDATION_ERROR')
      t.ok(fieldsOf(res.body).includes(field), `${name}: names ${field}: ${JSON.stringify(res.body.error.details)}`)
      t.notMatch(res.raw, /top-secret-not-a-key/)
    }
    t.equal((await a.putEnv('dev', created.id, ['not', 'an', 'object'])).status, 400, 'a non-object body')
    t.same((await a.getEnv('dev', created.id)).body.data, created, 'the stored environment is unchanged')
  })

  t.test('list: pagination, filters, sorting, summaries, isolation', async (t) => {
    const ctx2 = await startTestApp(t)
    const b = api(ctx2)
    const names = ['delta', 'alpha', 'echo', 'charlie', 'bravo']
    const providers = ['aws', 'azure', 'aws', 'gcp', 'aws']
    for (const [i, name] of names.entries()) {
      t.equal((await b.createEnv('dev', { ...base, name, provider: providers[i] })).status, 201)
      await new Promise((r) => setTimeout(r, 5))
    }
    await b.createEnv('other', { ...base, name: 'not-yours' })

    let res = await b.listEnvs('dev')
    t.equal(res.status, 200)
    t.same(res.body.pagination, { page: 1, limit: 20, total: 5, totalPages: 1 })
    t.same(
      res.body.data.map((e: { name: string }) => e.name),
      [...names].reverse(),
      'default: newest first',
    )
    t.same(
      Object.keys(res.body.data[0]).sort(),
      ['createdAt', 'id', 'name', 'provider', 'region', 'role', 'status', 'updatedAt'],
      'summary fields only',
    )

    const sorted = [...names].sort()
    const cases: Array<[string, string[]]> = [
      ['?sort=name', sorted],
      ['?sort=name&order=asc', sorted],
      ['?sort=name&order=desc', [...sorted].reverse()],
      ['?sort=created_at', [...names].reverse()],
      ['?sort=created_at&order=asc', names],
      ['?order=asc', names],
      ['?provider=aws&sort=name', ['bravo', 'delta', 'echo']],
      ['?provider=azure', ['alpha']],
      ['?provider=onpremise', []],
      ['?status=pending&sort=name&order=desc', [...sorted].reverse()],
      ['?status=running', []],
      ['?provider=aws&status=pending&sort=created_at&order=asc', ['delta', 'echo', 'bravo']],
    ]
    for (const [query, expected] of cases) {
      res = await b.listEnvs('dev', query)
      t.equal(res.status, 200, query)
      t.same(
        res.body.data.map((e: { name: string }) => e.name),
        expected,
        query,
      )
      t.equal(res.body.pagination.total, expected.length, `${query}: total`)
    }

    const pages: string[] = []
    for (let p = 1; p <= 3; p++) {
      res = await b.listEnvs('dev', `?sort=name&limit=2&page=${p}`)
      t.same(res.body.pagination, { page: p, limit: 2, total: 5, totalPages: 3 })
      pages.push(...res.body.data.map((e: { name: string }) => e.name))
    }
    t.same(pages, sorted, 'pages cover every item once')
    res = await b.listEnvs('dev', '?page=9')
    t.same(res.body.data, [], 'beyond the last page is empty')
    t.equal((await b.listEnvs('dev', '?limit=100')).status, 200, 'limit 100 is allowed')

    for (const [query, field] of [
      ['?limit=101', 'limit'],
      ['?limit=0', 'limit'],
      ['?page=0', 'page'],
      ['?page=abc', 'page'],
      ['?provider=oracle', 'provider'],
      ['?status=exploded', 'status'],
      ['?sort=region', 'sort'],
      ['?order=sideways', 'order'],
    ]) {
      res = await b.listEnvs('dev', query)
      t.equal(res.status, 400, query)
      t.ok(fieldsOf(res.body).includes(field), `${query} names ${field}: ${res.raw}`)
    }

    res = await b.listEnvs('other')
    t.same(
      res.body.data.map((e: { name: string }) => e.name),
      ['not-yours'],
      'each user sees only their own',
    )
    t.equal((await b.listEnvs('admin')).body.pagination.total, 0, 'admins too see only their own')
  })
})
