// /api/cloud-credentials: input validation per provider (never echoing a secret), returned shapes
// and metadata, renames and secret replacement, defaults, in-use deletion, isolation.
import t, { type Test } from 'tap'
import { generateKeyPairSync } from 'node:crypto'
import { startTestApp } from '../../harness/app.ts'
import { AWS_KEY, api, fieldsOf } from '../helpers.ts'

const PRIVATE_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string

export const AZURE = {
  subscriptionId: '11111111-2222-3333-4444-555555555555',
  tenantId: '11111111-2222-3333-4444-666666666666',
  clientId: '11111111-2222-3333-4444-777777777777',
  clientSecret: 'azure-secret-must-not-leak',
}
export const GCP = {
  projectId: 'acme-prod-1',
  serviceAccountKey: {
    type: 'service_account',
    project_id: 'acme-prod-1',
    private_key_id: 'abc123',
    private_key: PRIVATE_KEY,
    client_email: 'deployer@acme-prod-1.iam.gserviceaccount.com',
    token_uri: 'https://oauth2.googleapis.com/token',
  },
}
const SECRETS = [AWS_KEY.secretAccessKey, AZURE.clientSecret, PRIVATE_KEY.split('\n')[1], 'MIIE-not-pem', 'session-token-must-not-leak']

t.test('cloud credentials', async (t) => {
  const ctx = await startTestApp(t)
  const a = api(ctx)
  const noSecrets = (t: Test, raw: string, what: string) => {
    for (const s of SECRETS) t.notOk(raw.includes(s), `${what}: no secret value in the body`)
  }

  t.test('create: valid inputs per provider', async (t) => {
    const valid: Array<[string, string, unknown]> = [
      ['aws with region', 'aws', AWS_KEY],
      ['aws without region', 'aws', { accessKeyId: AWS_KEY.accessKeyId, secretAccessKey: AWS_KEY.secretAccessKey }],
      ['aws with session token', 'aws', { ...AWS_KEY, sessionToken: 'session-token-must-not-leak' }],
      ['azure', 'azure', AZURE],
      ['azure with a domain tenant', 'azure', { ...AZURE, tenantId: 'acme.onmicrosoft.com' }],
      ['gcp', 'gcp', GCP],
    ]
    for (const [name, provider, credentials] of valid) {
      const res = await a.createCred('dev', { name, provider, credentials })
      t.equal(res.status, 201, `${name}: ${res.raw}`)
      t.same(Object.keys(res.body.data).sort(), ['createdAt', 'id', 'name', 'provider', 'updatedAt'], `${name}: the created shape`)
      t.equal(res.body.data.provider, provider)
      noSecrets(t, res.raw, name)
    }
  })

  t.test('create: invalid inputs are 400 naming the field, never echoing a secret', async (t) => {
    const { secretAccessKey, ...noSecret } = AWS_KEY
    const { private_key, ...keyWithoutPrivate } = GCP.serviceAccountKey
    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['name missing', { name: undefined }, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['blank name', { name: '   ' }, 'name'],
      ['name of 101 characters', { name: 'n'.repeat(101) }, 'name'],
      ['provider missing', { provider: undefined }, 'provider'],
      ['provider onpremise', { provider: 'onpremise' }, 'provider'],
      ['credentials missing', { credentials: undefined }, 'credentials'],
      ['credentials not an object', { credentials: 'AKIA:secret' }, 'credentials'],
      ['aws accessKeyId missing', { credentials: { secretAccessKey: AWS_KEY.secretAccessKey } }, 'credentials.accessKeyId'],
      ['aws secretAccessKey missing', { credentials: noSecret }, 'credentials.secretAccessKey'],
      ['aws empty secretAccessKey', { credentials: { ...AWS_KEY, secretAccessKey: '' } }, 'credentials.secretAccessKey'],
      ['aws lowercase accessKeyId', { credentials: { ...AWS_KEY, accessKeyId: 'akiaiosfodnn7example' } }, 'credentials.accessKeyId'],
      ['aws accessKeyId too short', { credentials: { ...AWS_KEY, accessKeyId: 'AKIA123' } }, 'credentials.accessKeyId'],
      ['aws bad region', { credentials: { ...AWS_KEY, region: 'EU West' } }, 'credentials.region'],
      [
        'aws secretAccessKey not a string',
        { credentials: { ...AWS_KEY, secretAccessKey: { v: AWS_KEY.secretAccessKey } } },
        'credentials.secretAccessKey',
      ],
      [
        'aws secretAccessKey too long',
        { credentials: { ...AWS_KEY, secretAccessKey: `${AWS_KEY.secretAccessKey}${'x'.repeat(1000)}` } },
        'credentials.secretAccessKey',
      ],
      ['azure fields for aws', { credentials: AZURE }, 'credentials.accessKeyId'],
      ['azure clientSecret missing', { provider: 'azure', credentials: { ...AZURE, clientSecret: undefined } }, 'credentials.clientSecret'],
      ['azure tenantId missing', { provider: 'azure', credentials: { ...AZURE, tenantId: undefined } }, 'credentials.tenantId'],
      [
        'azure subscriptionId not a GUID',
        { provider: 'azure', credentials: { ...AZURE, subscriptionId: 'sub-1' } },
        'credentials.subscriptionId',
      ],
      ['azure clientId missing', { provider: 'azure', credentials: { ...AZURE, clientId: undefined } }, 'credentials.clientId'],
      ['azure tenantId with a slash', { provider: 'azure', credentials: { ...AZURE, tenantId: '../common' } }, 'credentials.tenantId'],
      ['gcp projectId missing', { provider: 'gcp', credentials: { serviceAccountKey: GCP.serviceAccountKey } }, 'credentials.projectId'],
      ['gcp serviceAccountKey missing', { provider: 'gcp', credentials: { projectId: GCP.projectId } }, 'credentials.serviceAccountKey'],
      [
        'gcp serviceAccountKey as a string',
        { provider: 'gcp', credentials: { ...GCP, serviceAccountKey: JSON.stringify(GCP.serviceAccountKey) } },
        'credentials.serviceAccountKey',
      ],
      [
        'gcp key of another type',
        { provider: 'gcp', credentials: { ...GCP, serviceAccountKey: { ...GCP.serviceAccountKey, type: 'authorized_user' } } },
        'credentials.serviceAccountKey.type',
      ],
      [
        'gcp key without private_key',
        { provider: 'gcp', credentials: { ...GCP, serviceAccountKey: keyWithoutPrivate } },
        'credentials.serviceAccountKey.private_key',
      ],
      [
        'gcp key with a bad private_key',
        { provider: 'gcp', credentials: { ...GCP, serviceAccountKey: { ...GCP.serviceAccountKey, private_key: 'MIIE-not-pem' } } },
        'credentials.serviceAccountKey.private_key',
      ],
      [
        'gcp key without client_email',
        { provider: 'gcp', credentials: { ...GCP, serviceAccountKey: { ...GCP.serviceAccountKey, client_email: undefined } } },
        'credentials.serviceAccountKey.client_email',
      ],
      [
        'gcp key with a bad client_email',
        { provider: 'gcp', credentials: { ...GCP, serviceAccountKey: { ...GCP.serviceAccountKey, client_email: 'nobody' } } },
        'credentials.serviceAccountKey.client_email',
      ],
      [
        'gcp key without project_id',
        { provider: 'gcp', credentials: { ...GCP, serviceAccountKey: { ...GCP.serviceAccountKey, project_id: undefined } } },
        'credentials.serviceAccountKey.project_id',
      ],
      ['gcp bad projectId', { provider: 'gcp', credentials: { ...GCP, projectId: 'Acme' } }, 'credentials.projectId'],
    ]
    void private_key
    void secretAccessKey
    for (const [name, fields, field] of invalid) {
      const body = JSON.parse(JSON.stringify({ name: `bad ${name}`, provider: 'aws', credentials: AWS_KEY, ...fields }))
      const res = await a.createCred('dev', body)
      t.equal(res.status, 400, `${name}: ${res.raw}`)
      t.equal(res.body.error.code, 'VALIDATION_ERROR')
      t.ok(fieldsOf(res.body).includes(field), `${name}: names ${field}: ${JSON.stringify(res.body.error.details)}`)
      noSecrets(t, res.raw, name)
    }
    t.notOk(
      (await a.listCreds('dev', '?limit=100')).body.data.some((c: { name: string }) => c.name.startsWith('bad ')),
      'nothing stored',
    )
  })

  t.test('read: metadata holds only non-secret values', async (t) => {
    const cases: Array<[string, unknown, Record<string, string>]> = [
      ['aws', AWS_KEY, { region: 'eu-west-1', accessKeyId: 'AKIA************MPLE' }],
      ['azure', AZURE, { tenantId: AZURE.tenantId, subscriptionId: AZURE.subscriptionId }],
      ['gcp', GCP, { projectId: GCP.projectId, client_email: GCP.serviceAccountKey.client_email }],
    ]
    for (const [provider, credentials, metadata] of cases) {
      const created = (await a.createCred('dev', { name: `meta ${provider}`, provider, credentials })).body.data
      const res = await a.getCred('dev', created.id)
      t.equal(res.status, 200)
      t.same(res.body.data, { ...created, isDefault: false, metadata }, provider)
      noSecrets(t, res.raw, provider)
      t.notOk(res.raw.includes(AWS_KEY.accessKeyId), 'the access key id only masked')
    }
  })

  t.test('duplicates, renames, secret replacement', async (t) => {
    const first = (await a.createCred('dev', { name: 'prod', provider: 'aws', credentials: AWS_KEY })).body.data
    const dupe = await a.createCred('dev', { name: 'prod', provider: 'azure', credentials: AZURE })
    t.equal(dupe.status, 409)
    t.equal(dupe.body.error.code, 'CONFLICT')
    t.equal((await a.createCred('other', { name: 'prod', provider: 'aws', credentials: AWS_KEY })).status, 201, 'names are per user')
    const racing = await Promise.all(
      Array.from({ length: 4 }, () => a.createCred('dev', { name: 'racing', provider: 'aws', credentials: AWS_KEY })),
    )
    t.same(racing.map((r) => r.status).sort(), [201, 409, 409, 409])

    const second = (await a.createCred('dev', { name: 'staging', provider: 'aws', credentials: AWS_KEY })).body.data
    t.equal((await a.putCred('dev', second.id, { name: 'prod' })).status, 409, 'renaming onto a taken name')

    const before = await ctx.db.client
      .db()
      .collection('cloud_credentials')
      .findOne({ _id: first.id as never })
    let res = await a.putCred('dev', first.id, { name: 'production' })
    t.equal(res.status, 200, res.raw)
    t.same(Object.keys(res.body.data).sort(), ['id', 'name', 'provider', 'updatedAt'])
    t.equal(res.body.data.name, 'production')
    t.ok(res.body.data.updatedAt > first.updatedAt)
    const renamed = await ctx.db.client
      .db()
      .collection('cloud_credentials')
      .findOne({ _id: first.id as never })
    t.same(renamed?.secret, before?.secret, 'a rename keeps the ciphertext')

    res = await a.putCred('dev', first.id, {
      credentials: { accessKeyId: 'AKIANEWKEY0000000009', secretAccessKey: 'brand-new-secret-value' },
    })
    t.equal(res.status, 200, res.raw)
    t.notMatch(res.raw, /brand-new-secret-value/)
    const replaced = await ctx.db.client
      .db()
      .collection('cloud_credentials')
      .findOne({ _id: first.id as never })
    t.not(replaced?.secret.data, before?.secret.data, 're-encrypted')
    t.not(replaced?.secret.iv, before?.secret.iv, 'with a fresh IV')
    t.same(
      (await a.getCred('dev', first.id)).body.data.metadata,
      { accessKeyId: 'AKIA************0009' },
      'metadata follows the new secret',
    )

    for (const [name, body, field] of [
      ['credentials of the wrong provider', { credentials: AZURE }, 'credentials.accessKeyId'],
      ['incomplete credentials', { credentials: { accessKeyId: 'AKIANEWKEY0000000009' } }, 'credentials.secretAccessKey'],
      ['empty name', { name: '' }, 'name'],
    ] as const) {
      res = await a.putCred('dev', first.id, body)
      t.equal(res.status, 400, name)
      t.ok(fieldsOf(res.body).includes(field), `${name}: ${res.raw}`)
      noSecrets(t, res.raw, name)
    }
    const after = await ctx.db.client
      .db()
      .collection('cloud_credentials')
      .findOne({ _id: first.id as never })
    t.same(after, replaced, 'a rejected update changes nothing')
    t.equal((await a.putCred('dev', first.id, { provider: 'gcp' })).body.data.provider, 'aws', 'the provider cannot change')
  })

  t.test('defaults: one per user and provider, shown in the list', async (t) => {
    const ctx2 = await startTestApp(t)
    const b = api(ctx2)
    const one = (await b.createCred('dev', { name: 'one', provider: 'aws', credentials: AWS_KEY })).body.data
    const two = (await b.createCred('dev', { name: 'two', provider: 'aws', credentials: AWS_KEY })).body.data
    const az = (await b.createCred('dev', { name: 'az', provider: 'azure', credentials: AZURE })).body.data
    const defaults = async () =>
      Object.fromEntries((await b.listCreds('dev')).body.data.map((c: { name: string; isDefault: boolean }) => [c.name, c.isDefault]))
    t.same(await defaults(), { one: false, two: false, az: false })
    let res = await b.call('dev', 'PUT', `/api/cloud-credentials/${one.id}/default`)
    t.equal(res.status, 200, res.raw)
    t.equal(res.body.data.isDefault, true)
    await b.call('dev', 'PUT', `/api/cloud-credentials/${az.id}/default`)
    t.same(await defaults(), { one: true, two: false, az: true })
    await b.call('dev', 'PUT', `/api/cloud-credentials/${two.id}/default`)
    t.same(await defaults(), { one: false, two: true, az: true }, 'the new default replaces the old one of that provider')
    t.equal((await b.getCred('dev', two.id)).body.data.isDefault, true)
    t.equal((await b.call('other', 'PUT', `/api/cloud-credentials/${one.id}/default`)).status, 404, "not another user's")
    t.equal((await b.call('dev', 'PUT', '/api/cloud-credentials/nope/default')).status, 404)
    t.equal((await b.deleteCred('dev', two.id)).status, 204)
    t.same(await defaults(), { one: false, az: true }, 'deleting the default leaves none for aws')

    res = await b.listCreds('dev', '?limit=2&provider=aws')
    t.same(res.body.pagination, { page: 1, limit: 2, total: 1, totalPages: 1 })
    t.equal((await b.listCreds('dev', '?limit=101')).status, 400)
  })

  t.test('delete: 204, 404, and CREDENTIAL_IN_USE listing the environments', async (t) => {
    const cred = (await a.createCred('dev', { name: 'in-use', provider: 'aws', credentials: AWS_KEY })).body.data
    const env = { globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', cloudCredentialId: cred.id }
    await a.createEnv('dev', { ...env, name: 'zulu' })
    await a.createEnv('dev', { ...env, name: 'alpha' })
    let res = await a.deleteCred('dev', cred.id)
    t.equal(res.status, 400)
    t.equal(res.body.error.code, 'CREDENTIAL_IN_USE')
    t.same(res.body.error.details, { environments: ['alpha', 'zulu'] })
    const zulu = (await a.listEnvs('dev', '?sort=name&order=desc')).body.data[0]
    await a.putEnv('dev', zulu.id, { cloudCredentialId: null })
    t.same((await a.deleteCred('dev', cred.id)).body.error.details, { environments: ['alpha'] })
    const alpha = (await a.listEnvs('dev', '?sort=name')).body.data[0]
    t.equal((await a.deleteEnv('dev', alpha.id)).status, 204)
    t.equal((await a.deleteCred('other', cred.id)).status, 404, "another user's is not found")
    res = await a.deleteCred('dev', cred.id)
    t.equal(res.status, 204)
    t.equal(res.raw, '')
    t.equal((await a.deleteCred('dev', cred.id)).status, 404)
    t.equal((await a.getCred('dev', cred.id)).status, 404)
  })

  t.test('isolation and routes', async (t) => {
    const mine = (await a.createCred('dev', { name: 'isolated', provider: 'aws', credentials: AWS_KEY })).body.data
    for (const [method, url, payload] of [
      ['GET', `/api/cloud-credentials/${mine.id}`],
      ['PUT', `/api/cloud-credentials/${mine.id}`, { name: 'stolen' }],
      ['DELETE', `/api/cloud-credentials/${mine.id}`],
      ['PUT', `/api/cloud-credentials/${mine.id}/default`],
      ['POST', `/api/cloud-credentials/${mine.id}/validate`],
    ] as const) {
      const res = await a.call('other', method, url, payload)
      t.equal(res.status, 404, `${method} ${url}`)
      t.same(res.body.error, { code: 'NOT_FOUND', message: 'Cloud credential not found' })
    }
    t.notOk(
      (await a.listCreds('other', '?limit=100')).body.data.some((c: { id: string }) => c.id === mine.id),
      'not in their list',
    )
    t.equal((await a.getCred('dev', mine.id)).body.data.name, 'isolated', 'untouched')
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      t.equal((await a.getCred('dev', id)).status, 404, id)
    }
    t.equal((await a.call('dev', 'GET', '/api/credentials')).status, 404, '/api/credentials is not mounted')
    t.equal((await a.call('dev', 'POST', '/api/credentials', { name: 'x', provider: 'aws', credentials: AWS_KEY })).status, 404)
    t.equal((await ctx.app.inject({ method: 'GET', url: '/api/cloud-credentials' })).statusCode, 401)
    const list = await a.listCreds('dev')
    t.same(Object.keys(list.body.data[0]).sort(), ['createdAt', 'id', 'isDefault', 'name', 'provider', 'updatedAt'])
    noSecrets(t, list.raw, 'list')
  })
})
