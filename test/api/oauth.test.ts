// The OAuth client's pieces: PKCE (RFC 7636 S256), state, the callback check, the token requests.
import t from 'tap'
import {
  basicAuthorization,
  beginLogin,
  codeChallenge,
  codeFromCallback,
  completeLogin,
  endpoint,
  jwtClaims,
  OAuthError,
  refreshToken,
  requestDeviceCode,
} from '@ies/api'
import { fakeTokenEndpoint } from '../harness/fake-token-endpoint.ts'

const cfg = { authUrl: 'http://idp.test/', realm: 'ies', clientId: 'ies-app' }

t.test('S256 challenge matches the RFC 7636 appendix B example', async (t) => {
  t.equal(await codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')
})

t.test('the authorization request carries PKCE S256, state and nonce for the app client', async (t) => {
  const { url, pending } = await beginLogin(cfg, 'http://127.0.0.1:5000/callback')
  const u = new URL(url)
  t.equal(`${u.origin}${u.pathname}`, 'http://idp.test/realms/ies/protocol/openid-connect/auth')
  const p = u.searchParams
  t.equal(p.get('response_type'), 'code')
  t.equal(p.get('client_id'), 'ies-app')
  t.equal(p.get('code_challenge_method'), 'S256')
  t.equal(p.get('code_challenge'), await codeChallenge(pending.verifier))
  t.equal(p.get('state'), pending.state)
  t.equal(p.get('redirect_uri'), 'http://127.0.0.1:5000/callback')
  t.match(p.get('scope'), /openid/)
  t.ok(pending.verifier.length >= 43 && pending.verifier.length <= 128, 'verifier length within RFC 7636 bounds')
  t.match(pending.verifier, /^[A-Za-z0-9_-]+$/)
  const again = await beginLogin(cfg, 'x:/')
  t.not(again.pending.state, pending.state, 'a fresh state per attempt')
})

t.test('the callback is checked: state must match, provider errors are reported', async (t) => {
  t.equal(codeFromCallback('http://h/cb?code=abc&state=s1', { state: 's1' }), 'abc')
  t.throws(() => codeFromCallback('http://h/cb?code=abc&state=other', { state: 's1' }), { name: 'OAuthError', error: 'invalid_state' })
  t.throws(
    () => codeFromCallback('http://h/cb?error=access_denied&error_description=no&state=s1', { state: 's1' }),
    new OAuthError(0, 'access_denied', 'no'),
  )
  t.throws(() => codeFromCallback('http://h/cb?state=s1', { state: 's1' }), { name: 'OAuthError', error: 'invalid_request' })
})

t.test('the code exchange sends the verifier and redirect URI', async (t) => {
  const idp = await fakeTokenEndpoint(t)
  const { pending } = await beginLogin(idp.cfg, 'http://127.0.0.1:1/cb')
  const tokens = await completeLogin(idp.cfg, `http://127.0.0.1:1/cb?code=the-code&state=${pending.state}`, pending, { now: () => 1000 })
  t.equal(tokens.accessToken, 'at-1')
  t.equal(tokens.expiresAt, 301_000)
  t.equal(tokens.refreshExpiresAt, 1_801_000)
  t.same(idp.forms[0], {
    path: '/realms/ies/protocol/openid-connect/token',
    client_id: 'ies-app',
    grant_type: 'authorization_code',
    code: 'the-code',
    redirect_uri: 'http://127.0.0.1:1/cb',
    code_verifier: pending.verifier,
  })
})

t.test('endpoints follow Keycloak paths', async (t) => {
  t.same(endpoint(cfg, 'logout'), 'http://idp.test/realms/ies/protocol/openid-connect/logout')
})

t.test('claims are read from a JWT as UTF-8; an unreadable token has none', async (t) => {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const token = `${part({ alg: 'none' })}.${part({ name: 'Zoë Ångström', sub: 'u1' })}.`
  t.same(jwtClaims(token), { name: 'Zoë Ångström', sub: 'u1' })
  t.same(jwtClaims('not a token'), {})
  t.same(jwtClaims(`${part({})}.${Buffer.from('[1]').toString('base64url')}.`), {}, 'an array holds no claims')
})

t.test('client authentication: Basic with both parts form-encoded (RFC 6749 2.3.1)', async (t) => {
  const expected = `Basic ${Buffer.from(`${encodeURIComponent('ies cli')}:${encodeURIComponent('s3cr:t/é')}`).toString('base64')}`
  t.equal(basicAuthorization('ies cli', 's3cr:t/é'), expected)
})

t.test('an error answer is an OAuthError with its status and code; the device request sends the client id', async (t) => {
  const idp = await fakeTokenEndpoint(t)
  const refused = await refreshToken({ ...idp.cfg, refreshToken: 'revoked' }).catch((e) => e)
  t.match(refused, { name: 'OAuthError', status: 400, error: 'invalid_grant', description: 'Token is not active' })
  t.equal(refused.message, 'invalid_grant: Token is not active (HTTP 400)')
  const down = await refreshToken({ ...idp.cfg, refreshToken: 'unreachable' }).catch((e) => e)
  t.match(down, { name: 'OAuthError', status: 503, error: 'invalid_response' }, 'an answer that is not JSON says so')
  await requestDeviceCode({ ...idp.cfg, clientId: 'ies-device' }).catch(() => {})
  t.match(idp.forms.at(-1), { path: '/realms/ies/protocol/openid-connect/auth/device', client_id: 'ies-device' })
})
