// Only access tokens open the API, against a real provider where it can issue the token kind (the
// embedded provider, oidc-provider; test/server/idp/keycloak.test.ts holds Keycloak's tokens to the
// same rule, with the Keycloak it starts). ID, refresh and logout tokens, tokens of other clients and
// tokens in the URL are refused; the log never holds a token from the URL; random key ids cannot make
// the server fetch the provider's key set over and over.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import {
  APP_CLIENT_ID,
  getClientCredentialsToken,
  getUserToken,
  jwtClaims,
  jwtHeader,
  startTestIdentityProvider,
} from '../harness/identity.ts'
import { logLines } from '../harness/log-lines.ts'
import { generateSigningKey } from '../harness/token-issuer.ts'

/** GET /api/users/me with a bearer token (or none), through the real HTTP server. */
const me = (url: string, token?: string, query = '') =>
  fetch(`${url}/api/users/me${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })

t.test('forged claims: only access tokens of the configured clients', async (t) => {
  const { url, issuer } = await startTestApp(t)
  const user = { sub: '7d1c3f0e-2a4b-4c5d-8e9f-0000000000aa', preferred_username: 'kinds' }
  const cases: Array<[string, string, number]> = [
    ['a Keycloak access token (typ Bearer)', issuer.sign(user), 200],
    ['an RFC 9068 access token (header at+jwt)', issuer.sign({ ...user, typ: undefined }, { header: { typ: 'at+jwt' } }), 200],
    [
      'an RFC 9068 token naming its client in client_id',
      issuer.sign({ ...user, typ: undefined, azp: undefined, client_id: 'ies-cli' }, { header: { typ: 'at+jwt' } }),
      200,
    ],
    ['a Keycloak ID token (typ ID)', issuer.sign({ ...user, typ: 'ID', aud: APP_CLIENT_ID, nonce: 'n' }), 401],
    ['an OpenID ID token (no typ)', issuer.sign({ ...user, typ: undefined, aud: APP_CLIENT_ID }), 401],
    ['a Keycloak refresh token (typ Refresh)', issuer.sign({ ...user, typ: 'Refresh' }), 401],
    ['a Keycloak offline token', issuer.sign({ ...user, typ: 'Offline' }), 401],
    [
      'a logout token (header logout+jwt)',
      issuer.sign(
        { ...user, typ: 'Logout', events: { 'http://schemas.openid.net/event/backchannel-logout': {} } },
        { header: { typ: 'logout+jwt' } },
      ),
      401,
    ],
    ['a logout token with a Bearer payload', issuer.sign(user, { header: { typ: 'logout+jwt' } }), 401],
    ['at+jwt with a Refresh payload', issuer.sign({ ...user, typ: 'Refresh' }, { header: { typ: 'at+jwt' } }), 401],
    ['a token of another client (azp)', issuer.sign({ ...user, azp: 'some-other-client' }), 401],
    ['a token without a client', issuer.sign({ ...user, azp: undefined }), 401],
  ]
  for (const [name, token, status] of cases) {
    const res = await me(url, token)
    t.equal(res.status, status, `${name}: ${status}`)
    if (status === 401) t.equal(((await res.json()) as any).error.code, 'UNAUTHORIZED', `${name}: UNAUTHORIZED`)
  }
})

t.test('AUTH_ALLOWED_CLIENTS and AUTH_AUDIENCE narrow the accepted clients', async (t) => {
  const { url, issuer } = await startTestApp(t, { AUTH_ALLOWED_CLIENTS: 'ies-app', AUTH_AUDIENCE: 'ies-app' })
  t.equal((await me(url, issuer.sign({ aud: ['ies-app'] }))).status, 200, 'the app client with the audience')
  t.equal((await me(url, issuer.sign({ aud: ['ies-app'], azp: 'ies-cli' }))).status, 401, 'a client not in AUTH_ALLOWED_CLIENTS')
  t.equal((await me(url, issuer.sign({ aud: ['account'] }))).status, 200, 'azp names the audience')
  const other = await startTestApp(t, { AUTH_AUDIENCE: 'ies-api' })
  t.equal((await me(other.url, other.issuer.sign({ aud: ['account'], azp: 'ies-app' }))).status, 401, 'a token for another audience')
})

t.test('a token in the URL is never accepted, nor logged', async (t) => {
  const { lines, logStream } = logLines()
  const { url, tokenFor } = await startTestApp(t, { LOG_LEVEL: 'info' }, { logStream })
  const token = tokenFor('dev')
  t.equal((await me(url, token)).status, 200, 'the token works in the Authorization header')
  for (const query of [
    `?access_token=${token}`,
    `?token=${token}`,
    `?x=${token}`,
    `?code=secret-code-1&state=s`,
    `?refresh_token=secret-refresh-1`,
    `?client_secret=secret-client-1`,
    `?password=secret-password-1`,
    `?my_api_key=secret-key-1`,
  ]) {
    const res = await me(url, undefined, query)
    t.equal(res.status, 401, `${query.slice(0, 24)}…: 401, the URL is not read for tokens`)
  }
  const paths = await fetch(`${url}/api/environments/${token}`)
  t.ok(paths.status === 401 || paths.status === 404, `a token in the path opens nothing (${paths.status})`)
  const log = lines.join('\n')
  t.ok(
    lines.some((l) => l.includes('/api/users/me?')),
    'the requests were logged',
  )
  for (const secret of [
    token,
    token.split('.')[1],
    'secret-code-1',
    'secret-refresh-1',
    'secret-client-1',
    'secret-password-1',
    'secret-key-1',
  ]) {
    t.notOk(log.includes(secret), `the log does not hold ${secret.slice(0, 16)}…`)
  }
  t.ok(log.includes('access_token=[redacted]'), 'the parameter is logged as [redacted]')
  t.ok(log.includes('state=s'), 'other parameters are kept')
})

t.test('random key ids cannot flood the provider with JWKS fetches', async (t) => {
  const { url, issuer, tokenFor } = await startTestApp(t, { AUTH_JWKS_REFETCH_INTERVAL_MS: '60000' })
  t.equal((await me(url, tokenFor('dev'))).status, 200, 'a valid token (the key set is fetched)')
  const before = issuer.fetches
  const stranger = generateSigningKey()
  const flood = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      me(
        url,
        issuer.sign(
          { sub: `7d1c3f0e-2a4b-4c5d-8e9f-0000000001${String(i).padStart(2, '0')}` },
          { key: { ...stranger, kid: `random-${i}` } },
        ),
      ),
    ),
  )
  t.ok(
    flood.every((res) => res.status === 401),
    'every unknown kid is refused',
  )
  t.ok(issuer.fetches - before <= 1, `50 unknown kids cost at most one fetch (${issuer.fetches - before})`)
  const afterFlood = issuer.fetches
  for (let i = 0; i < 5; i++) await me(url, issuer.sign({}, { key: { ...stranger, kid: 'random-1' } }))
  t.equal(issuer.fetches, afterFlood, 'a remembered unknown kid costs no fetch')
  t.equal((await me(url, tokenFor('other'))).status, 200, 'tokens with the served key still work')
})

t.test('key rotation still works: a new kid is fetched once the interval has passed', async (t) => {
  const { url, issuer, tokenFor } = await startTestApp(t, { AUTH_JWKS_REFETCH_INTERVAL_MS: '0' })
  t.equal((await me(url, tokenFor('dev'))).status, 200)
  issuer.rotate()
  t.equal((await me(url, tokenFor('dev'))).status, 200, 'a token signed with the rotated key is accepted')
})

t.test("a real provider's access tokens open the API, its ID and refresh tokens do not", async (t) => {
  const provider = await startTestIdentityProvider()
  t.teardown(() => provider.close())
  const { url } = await startTestApp(t, { AUTH_URL: provider.authUrl, AUTH_REALM: 'ies' })
  const tokens = await getUserToken({ authUrl: provider.authUrl, realm: 'ies', username: 'dev', scope: 'openid profile email' })
  t.equal((await me(url, tokens.access_token)).status, 200, 'the access token opens the API')
  t.type(tokens.id_token, 'string', 'an ID token was issued')
  t.comment(`ID token header ${JSON.stringify(jwtHeader(tokens.id_token!))}, typ ${String(jwtClaims(tokens.id_token!).typ)}`)
  t.equal((await me(url, tokens.id_token)).status, 401, 'the ID token is refused')
  t.equal((await me(url, tokens.refresh_token)).status, 401, 'the refresh token is refused')
  t.equal((await me(url, undefined, `?access_token=${tokens.access_token}`)).status, 401, 'the access token in the URL is refused')
  const service = await getClientCredentialsToken({ authUrl: provider.authUrl, realm: 'ies', clientSecret: provider.cliClientSecret })
  t.equal((await me(url, service.access_token)).status, 200, 'a client-credentials access token of ies-cli opens the API')
})
