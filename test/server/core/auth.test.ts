// Authentication: every /api route needs a valid bearer token; forged, expired and misdirected
// tokens are refused; an unknown key id refetches the JWKS once (rotation); roles gate admin routes.
import t from 'tap'
import { createHmac } from 'node:crypto'
import { startTestApp } from '../../harness/app.ts'
import { generateSigningKey } from '../../harness/token-issuer.ts'

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url')

t.test('missing, malformed and forged tokens', async (t) => {
  const { app, issuer, tokenFor } = await startTestApp(t)
  const get = (authorization?: string) =>
    app.inject({ method: 'GET', url: '/api/users/me', headers: authorization ? { authorization } : {} })

  const now = Math.floor(Date.now() / 1000)
  const good = tokenFor('dev')
  const [h, p, s] = good.split('.')
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString())
  const publicPem = issuer.current.publicKey.export({ type: 'spki', format: 'pem' }) as string
  const hsHeader = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: issuer.current.kid }))
  const hsInput = `${hsHeader}.${p}`
  const hmacWithPublicKey = `${hsInput}.${b64url(createHmac('sha256', publicPem).update(hsInput).digest())}`

  const cases: Array<[string, string | undefined, string]> = [
    ['no header', undefined, 'UNAUTHORIZED'],
    ['not bearer', `Basic ${Buffer.from('a:b').toString('base64')}`, 'UNAUTHORIZED'],
    ['garbage', 'Bearer not.a.jwt', 'UNAUTHORIZED'],
    ['alg none', `Bearer ${issuer.sign({}, { header: { alg: 'none' }, signature: 'none' })}`, 'UNAUTHORIZED'],
    ['HMAC keyed with the public key', `Bearer ${hmacWithPublicKey}`, 'UNAUTHORIZED'],
    ['wrong issuer', `Bearer ${issuer.sign({ iss: 'http://127.0.0.1:1/realms/evil' })}`, 'UNAUTHORIZED'],
    [
      'signed by another key with the served kid',
      `Bearer ${issuer.sign({}, { key: { ...generateSigningKey(), kid: issuer.current.kid } })}`,
      'UNAUTHORIZED',
    ],
    ['tampered payload', `Bearer ${h}.${b64url(JSON.stringify({ ...payload, realm_access: { roles: ['admin'] } }))}.${s}`, 'UNAUTHORIZED'],
    ['not yet valid', `Bearer ${issuer.sign({ nbf: now + 600 })}`, 'UNAUTHORIZED'],
    ['no subject', `Bearer ${issuer.sign({ sub: undefined })}`, 'UNAUTHORIZED'],
    ['expired', `Bearer ${issuer.sign({ iat: now - 900, exp: now - 600 })}`, 'TOKEN_EXPIRED'],
  ]
  // The genuine token is verified (and remembered) first: none of its forged variants may ride on it.
  t.equal((await get(`Bearer ${good}`)).statusCode, 200, 'the genuine token works')
  for (const [name, header, code] of cases) {
    const res = await get(header)
    t.equal(res.statusCode, 401, name)
    t.equal(res.json().error.code, code, name)
    if (code === 'TOKEN_EXPIRED') t.equal(res.json().error.message, 'Access token has expired')
    if (code === 'UNAUTHORIZED') t.equal(res.json().error.message, 'Authentication required', name)
  }
  t.equal((await get(`Bearer ${good}`)).statusCode, 200, 'the genuine token still works')
})

t.test('a remembered token is refused once it expires', async (t) => {
  const { app, issuer } = await startTestApp(t)
  const now = Math.floor(Date.now() / 1000)
  const authorization = `Bearer ${issuer.sign({ iat: now, exp: now + 2 })}`
  const get = () => app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization } })
  t.equal((await get()).statusCode, 200, 'valid and remembered')
  t.equal((await get()).statusCode, 200, 'answered again while valid')
  await new Promise((resolve) => setTimeout(resolve, (now + 2) * 1000 - Date.now() + 50))
  const res = await get()
  t.equal(res.statusCode, 401)
  t.equal(res.json().error.code, 'TOKEN_EXPIRED')
})

t.test('every /api route requires a token', async (t) => {
  const { app } = await startTestApp(t)
  for (const [method, url] of [
    ['GET', '/api/users/me'],
    ['PUT', '/api/users/me'],
    ['GET', '/api/users/me/preferences'],
    ['PUT', '/api/users/me/preferences'],
    ['GET', '/api/users'],
  ] as const) {
    const res = await app.inject({ method, url, payload: method === 'PUT' ? {} : undefined })
    t.equal(res.statusCode, 401, `${method} ${url}`)
  }
})

t.test('an unknown kid refetches the JWKS once; rotated keys are accepted', async (t) => {
  const { app, issuer } = await startTestApp(t)
  const first = await app.inject({
    method: 'GET',
    url: '/api/users/me',
    headers: { authorization: `Bearer ${issuer.sign({ sub: 'a0000000-0000-4000-8000-000000000001', preferred_username: 'rot' })}` },
  })
  t.equal(first.statusCode, 200)
  const fetchesBefore = issuer.fetches

  issuer.rotate()
  const rotated = await app.inject({
    method: 'GET',
    url: '/api/users/me',
    headers: { authorization: `Bearer ${issuer.sign({ sub: 'a0000000-0000-4000-8000-000000000001', preferred_username: 'rot' })}` },
  })
  t.equal(rotated.statusCode, 200, 'a token signed with the new key is accepted')
  t.equal(issuer.fetches, fetchesBefore + 1, 'the JWKS was fetched once for the new kid')

  const stranger = generateSigningKey()
  const unknown = await app.inject({
    method: 'GET',
    url: '/api/users/me',
    headers: { authorization: `Bearer ${issuer.sign({}, { key: stranger })}` },
  })
  t.equal(unknown.statusCode, 401, 'a kid the provider does not serve is refused')
  t.equal(unknown.json().error.code, 'UNAUTHORIZED')
})

t.test('audience check, when configured', async (t) => {
  const { app, issuer } = await startTestApp(t, { AUTH_AUDIENCE: 'ies-api', AUTH_ALLOWED_CLIENTS: 'ies-app,ies-api' })
  const wrong = await app.inject({
    method: 'GET',
    url: '/api/users/me',
    headers: { authorization: `Bearer ${issuer.sign({ aud: 'account', azp: 'other-client' })}` },
  })
  t.equal(wrong.statusCode, 401, 'wrong audience refused')
  const byAud = await app.inject({
    method: 'GET',
    url: '/api/users/me',
    headers: { authorization: `Bearer ${issuer.sign({ aud: ['account', 'ies-api'] })}` },
  })
  t.equal(byAud.statusCode, 200, 'audience in aud')
  const byAzp = await app.inject({
    method: 'GET',
    url: '/api/users/me',
    headers: { authorization: `Bearer ${issuer.sign({ aud: 'account', azp: 'ies-api' })}` },
  })
  t.equal(byAzp.statusCode, 200, 'audience as azp')
})

t.test('admin routes: realm role admin or client role environment-admin', async (t) => {
  const { app, issuer, auth } = await startTestApp(t)
  const list = (authorization: string) => app.inject({ method: 'GET', url: '/api/users', headers: { authorization } })
  const plain = await list(auth('dev').authorization)
  t.equal(plain.statusCode, 403)
  t.same(plain.json().error, { code: 'FORBIDDEN', message: 'Insufficient permissions' })
  t.equal((await list(auth('admin').authorization)).statusCode, 200)
  const realmAdmin = issuer.sign({ sub: 'b0000000-0000-4000-8000-000000000001', realm_access: { roles: ['admin'] } })
  t.equal((await list(`Bearer ${realmAdmin}`)).statusCode, 200, 'realm role admin')
  const clientAdmin = issuer.sign({
    sub: 'b0000000-0000-4000-8000-000000000002',
    realm_access: { roles: ['user'] },
    resource_access: { 'ies-app': { roles: ['environment-admin'] } },
  })
  t.equal((await list(`Bearer ${clientAdmin}`)).statusCode, 200, 'client role environment-admin')
  const otherClient = issuer.sign({
    sub: 'b0000000-0000-4000-8000-000000000003',
    resource_access: { 'another-app': { roles: ['environment-admin'] } },
  })
  t.equal((await list(`Bearer ${otherClient}`)).statusCode, 403, 'the role on another client does not count')
})

t.test('claims of the wrong type: refused, or granting nothing', async (t) => {
  const { app, issuer } = await startTestApp(t)
  const get = (url: string, token: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })
  for (const [name, claims] of [
    ['a query object as the subject', { sub: { $ne: null } }],
    ['an empty subject', { sub: '' }],
    ['an operator object as the username', { preferred_username: { $gt: '' } }],
    ['a list as the email', { email: ['a@example.com'] }],
  ] as const) {
    const res = await get('/api/users/me', issuer.sign(claims))
    t.equal(res.statusCode, 401, name)
    t.equal(res.json().error.code, 'UNAUTHORIZED', name)
  }
  // A roles claim that is a string is no list of roles: "not-admin" contains "admin" as text only.
  const stringRoles = issuer.sign({
    sub: 'c0000000-0000-4000-8000-000000000001',
    realm_access: { roles: 'not-admin' },
    resource_access: { 'ies-app': { roles: 'no-environment-admin' } },
  })
  t.equal((await get('/api/users', stringRoles)).statusCode, 403, 'string roles grant nothing')
  t.equal((await get('/api/users/me', stringRoles)).statusCode, 200, 'the token is otherwise fine')
})
