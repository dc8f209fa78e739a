// POST /api/cloud-credentials/:id/validate: AWS against a real moto server with request
// authentication on, Azure and Google against loopback token endpoints (and unreachable ones).
import t, { type Test } from 'tap'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createVerify, generateKeyPairSync } from 'node:crypto'
import { startTestApp } from '../../harness/app.ts'
import { startTestMoto } from '../../harness/moto.ts'
import { api } from '../helpers.ts'

interface TokenRequest {
  path: string
  form: URLSearchParams
}

/** A loopback OAuth token endpoint that grants when `grant(request)` says so. */
async function tokenEndpoint(t: Test, grant: (req: TokenRequest) => boolean) {
  const seen: TokenRequest[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const request = { path: req.url ?? '', form: new URLSearchParams(body) }
      seen.push(request)
      res.setHeader('content-type', 'application/json')
      if (grant(request)) return res.end(JSON.stringify({ access_token: 'granted', token_type: 'Bearer', expires_in: 3599 }))
      res.statusCode = 400
      res.end(JSON.stringify({ error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

t.test('aws: STS GetCallerIdentity against moto with authentication on', async (t) => {
  // Two unauthenticated actions (CreateUser, CreateAccessKey), then every request must be signed by
  // a key moto's IAM knows.
  const moto = await startTestMoto(t, { authAfterActions: 2 })
  const key = await moto.createAccessKey('ies-validator')
  const ctx = await startTestApp(t, { AWS_ENDPOINT_URL: moto.endpoint })
  const a = api(ctx)
  const check = async (name: string, credentials: Record<string, string>) => {
    const id = (await a.createCred('dev', { name, provider: 'aws', credentials })).body.data.id
    const res = await a.call('dev', 'POST', `/api/cloud-credentials/${id}/validate`)
    t.equal(res.status, 200, `${name}: ${res.raw}`)
    t.notOk(res.raw.includes(key.secretAccessKey), `${name}: no secret in the answer`)
    return res.body.data
  }

  const good = await check('good', { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey, region: 'eu-west-1' })
  t.match(good, { valid: true, identity: { arn: key.arn, accountId: key.arn.split(':')[4] }, checkedAt: /^\d{4}-\d\d-\d\dT/ })
  t.match(good.identity.arn, /^arn:aws:iam::\d{12}:user\/ies-validator$/)

  const wrongSecret = await check('wrong secret', {
    accessKeyId: key.accessKeyId,
    secretAccessKey: `${key.secretAccessKey.slice(0, -4)}abcd`,
  })
  t.equal(wrongSecret.valid, false)
  t.match(wrongSecret.error, /signature/i)
  t.notOk(wrongSecret.unreachable, 'an answer of STS: judged invalid, not "could not check"')

  const unknownKey = await check('unknown key', { accessKeyId: 'AKIAUNKNOWNKEY000000', secretAccessKey: key.secretAccessKey })
  t.equal(unknownKey.valid, false)
  t.match(unknownKey.error, /token|invalid/i)
})

t.test('aws: an unreachable endpoint is valid: false, unreachable, and the result is kept with its time', async (t) => {
  const ctx = await startTestApp(t, { AWS_ENDPOINT_URL: 'http://127.0.0.1:1', CREDENTIAL_VALIDATE_TIMEOUT_MS: '2000' })
  const a = api(ctx)
  const id = (
    await a.createCred('dev', {
      name: 'x',
      provider: 'aws',
      credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'abcd1234secret' },
    })
  ).body.data.id
  const res = await a.call('dev', 'POST', `/api/cloud-credentials/${id}/validate`)
  t.equal(res.status, 200)
  t.equal(res.body.data.valid, false)
  t.equal(res.body.data.unreachable, true, 'could not check')
  t.match(res.body.data.error, /^Could not reach AWS STS: the connection was refused/, 'in words')
  t.notMatch(res.raw, /abcd1234secret/)
  const detail = await a.call('dev', 'GET', `/api/cloud-credentials/${id}`)
  t.same(detail.body.data.lastValidation, res.body.data, 'the last check is kept with the credential')
  const list = await a.call('dev', 'GET', '/api/cloud-credentials')
  t.same(list.body.data.find((c: { id: string }) => c.id === id).lastValidation, res.body.data, 'and listed')
})

const AZURE = {
  subscriptionId: '11111111-2222-3333-4444-555555555555',
  tenantId: 'acme.onmicrosoft.com',
  clientId: '11111111-2222-3333-4444-777777777777',
  clientSecret: 'the-right-client-secret',
}

t.test('azure: client credentials grant at the tenant token endpoint', async (t) => {
  const endpoint = await tokenEndpoint(t, (req) => req.form.get('client_secret') === AZURE.clientSecret)
  const ctx = await startTestApp(t, { AZURE_AUTHORITY_HOST: endpoint.url })
  const a = api(ctx)
  const validate = async (name: string, credentials: typeof AZURE) => {
    const id = (await a.createCred('dev', { name, provider: 'azure', credentials })).body.data.id
    const res = await a.call('dev', 'POST', `/api/cloud-credentials/${id}/validate`)
    t.equal(res.status, 200)
    t.notMatch(res.raw, new RegExp(credentials.clientSecret))
    return res.body.data
  }
  t.match(await validate('good', AZURE), { valid: true, identity: { arn: AZURE.clientId, accountId: AZURE.subscriptionId } })
  const sent = endpoint.seen[0]
  t.equal(sent.path, '/acme.onmicrosoft.com/oauth2/v2.0/token')
  t.equal(sent.form.get('grant_type'), 'client_credentials')
  t.equal(sent.form.get('client_id'), AZURE.clientId)

  const bad = await validate('bad', { ...AZURE, clientSecret: 'a-wrong-client-secret' })
  t.equal(bad.valid, false)
  t.match(bad.error, /HTTP 400.*invalid_client/)
})

t.test('gcp: a signed JWT bearer assertion at the token endpoint', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
  const endpoint = await tokenEndpoint(t, (req) => {
    const [header, claims, signature] = (req.form.get('assertion') ?? '').split('.')
    return createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(publicKey, Buffer.from(signature ?? '', 'base64url'))
  })
  const ctx = await startTestApp(t, { GCP_TOKEN_URL: `${endpoint.url}/token` })
  const a = api(ctx)
  const key = {
    type: 'service_account',
    project_id: 'acme-prod-1',
    private_key: pem,
    client_email: 'ci@acme-prod-1.iam.gserviceaccount.com',
  }
  const validate = async (name: string, privateKeyPem: string) => {
    const id = (
      await a.createCred('dev', {
        name,
        provider: 'gcp',
        credentials: { projectId: 'acme-prod-1', serviceAccountKey: { ...key, private_key: privateKeyPem } },
      })
    ).body.data.id
    const res = await a.call('dev', 'POST', `/api/cloud-credentials/${id}/validate`)
    t.equal(res.status, 200)
    t.notMatch(res.raw, /PRIVATE KEY/)
    return res.body.data
  }
  t.match(await validate('good', pem), { valid: true, identity: { arn: key.client_email, accountId: 'acme-prod-1' } })
  const claims = JSON.parse(Buffer.from(endpoint.seen[0].form.get('assertion')!.split('.')[1], 'base64url').toString())
  t.equal(claims.iss, key.client_email)
  t.equal(claims.aud, `${endpoint.url}/token`)
  t.equal(endpoint.seen[0].form.get('grant_type'), 'urn:ietf:params:oauth:grant-type:jwt-bearer')

  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
  const refused = await validate('other key', otherKey)
  t.equal(refused.valid, false)
  t.match(refused.error, /HTTP 400/)

  const unreadable = await validate('unreadable', '-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n')
  t.match(unreadable, { valid: false, error: 'serviceAccountKey.private_key is not a readable private key' }, 'the local structural check')
  t.notOk(unreadable.unreachable)
  t.equal(endpoint.seen.length, 2, 'an unreadable key never reaches the endpoint')
})

t.test('azure and gcp: unreachable token endpoints are valid: false', async (t) => {
  const ctx = await startTestApp(t, { AZURE_AUTHORITY_HOST: 'http://127.0.0.1:1', GCP_TOKEN_URL: 'http://127.0.0.1:1/token' })
  const a = api(ctx)
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
  for (const [provider, credentials] of [
    ['azure', AZURE],
    [
      'gcp',
      {
        projectId: 'acme-prod-1',
        serviceAccountKey: {
          type: 'service_account',
          project_id: 'acme-prod-1',
          private_key: pem,
          client_email: 'ci@acme-prod-1.iam.gserviceaccount.com',
        },
      },
    ],
  ] as const) {
    const id = (await a.createCred('dev', { name: provider, provider, credentials })).body.data.id
    const res = await a.call('dev', 'POST', `/api/cloud-credentials/${id}/validate`)
    t.equal(res.status, 200, provider)
    t.equal(res.body.data.valid, false, provider)
    t.match(res.body.data.error, /^Could not reach the token endpoint/, provider)
    t.equal(res.body.data.unreachable, true, provider)
    t.notMatch(res.raw, /the-right-client-secret|PRIVATE KEY/)
  }
})
