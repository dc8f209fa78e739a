// The embedded identity provider over real HTTP: every flow of the spec's table, with exactly the
// spec's form fields, token response fields and access-token claims.
import t from 'tap'
import {
  APP_CLIENT_ID,
  CLI_CLIENT_ID,
  DEVICE_CLIENT_ID,
  TEST_CLI_SECRET,
  TEST_PASSWORDS,
  TEST_USERS,
  approveDevice,
  authorize,
  exchangeCode,
  expectOAuthError,
  getClientCredentialsToken,
  getUserToken,
  introspect,
  jwtClaims,
  jwtHeader,
  logout,
  pollDeviceToken,
  refreshToken,
  requestDeviceCode,
  startTestIdentityProvider,
  verifiedByCerts,
} from '../../harness/identity.ts'
import { serviceAccountId } from '../../../server/src/idp/index.ts'
import { basicAuthorization, endpoint, postForm } from '../../harness/scripted-login.ts'

const TOKEN_RESPONSE_FIELDS = [
  'access_token',
  'expires_in',
  'refresh_expires_in',
  'refresh_token',
  'token_type',
  'not-before-policy',
  'session_state',
  'scope',
]
const ACCESS_TOKEN_CLAIMS = [
  'exp',
  'iat',
  'jti',
  'iss',
  'aud',
  'sub',
  'typ',
  'azp',
  'session_state',
  'acr',
  'realm_access',
  'scope',
  'sid',
  'email_verified',
  'preferred_username',
  'given_name',
  'family_name',
  'email',
]
const INTROSPECTION_FIELDS = ['active', 'sub', 'preferred_username', 'email', 'email_verified', 'exp', 'iat', 'client_id']

const dev = TEST_USERS.find((user) => user.username === 'dev')!
const admin = TEST_USERS.find((user) => user.username === 'admin')!

t.test('embedded identity provider', async (t) => {
  const idp = await startTestIdentityProvider()
  t.teardown(() => idp.close())
  const { authUrl } = idp
  const realm = { authUrl, realm: 'ies' }

  t.test('discovery at Keycloak paths', async (t) => {
    const response = await fetch(`${idp.issuer}/.well-known/openid-configuration`)
    t.equal(response.status, 200)
    const doc = (await response.json()) as Record<string, unknown>
    const base = `${authUrl}/realms/ies/protocol/openid-connect`
    t.equal(doc.issuer, `${authUrl}/realms/ies`)
    t.equal(doc.authorization_endpoint, `${base}/auth`)
    t.equal(doc.token_endpoint, `${base}/token`)
    t.equal(doc.device_authorization_endpoint, `${base}/auth/device`)
    t.equal(doc.introspection_endpoint, `${base}/token/introspect`)
    t.equal(doc.end_session_endpoint, `${base}/logout`)
    t.equal(doc.jwks_uri, `${base}/certs`)
    t.equal(doc.userinfo_endpoint, `${base}/userinfo`)
    t.same(doc.code_challenge_methods_supported, ['S256'])
  })

  t.test('authorization code with PKCE: token response and access-token claims', async (t) => {
    const tokens = await getUserToken({ authUrl, username: 'admin' })
    for (const field of TOKEN_RESPONSE_FIELDS) t.ok(field in tokens, `token response has ${field}`)
    t.equal(tokens.token_type, 'Bearer')
    t.equal(tokens.expires_in, 300)
    t.equal(tokens.refresh_expires_in, 1800)
    t.equal(tokens['not-before-policy'], 0)
    t.equal(tokens.scope, 'openid profile email')

    const header = jwtHeader(tokens.access_token)
    t.equal(header.alg, 'RS256')
    t.type(header.kid, 'string')
    t.ok(await verifiedByCerts(realm, tokens.access_token), 'signature verifies with the certs endpoint')

    const claims = jwtClaims(tokens.access_token)
    for (const claim of ACCESS_TOKEN_CLAIMS) t.ok(claim in claims, `access token has ${claim}`)
    t.equal(claims.iss, idp.issuer)
    t.equal(claims.sub, admin.id)
    t.equal(claims.typ, 'Bearer')
    t.equal(claims.azp, APP_CLIENT_ID)
    t.same(claims.aud, [APP_CLIENT_ID, CLI_CLIENT_ID], 'audience: the app and the introspecting CLI client')
    t.equal(claims.scope, 'openid profile email')
    t.equal(claims.session_state, tokens.session_state, 'session_state matches the token response')
    t.equal(claims.sid, tokens.session_state)
    t.equal(claims.acr, '1')
    t.equal((claims.exp as number) - (claims.iat as number), 300, 'access token lives 300 s')
    t.same(claims.realm_access, { roles: ['user', 'admin'] })
    t.same(claims.resource_access, { [APP_CLIENT_ID]: { roles: ['environment-admin'] } })
    t.equal(claims.preferred_username, 'admin')
    t.equal(claims.email, admin.email)
    t.equal(claims.email_verified, true)
    t.equal(claims.given_name, admin.givenName)
    t.equal(claims.family_name, admin.familyName)

    const devClaims = jwtClaims((await getUserToken({ authUrl, username: 'dev' })).access_token)
    t.equal(devClaims.sub, dev.id)
    t.same(devClaims.realm_access, { roles: ['user'] })
    t.notOk(devClaims.resource_access, 'no client roles for dev')
  })

  t.test('PKCE is required, S256 only, and the verifier must match', async (t) => {
    await expectOAuthError(
      t,
      authorize({ ...realm, clientId: APP_CLIENT_ID, username: 'dev', password: TEST_PASSWORDS.dev, pkce: false }),
      { error: 'invalid_request' },
      'no code_challenge',
    )
    await expectOAuthError(
      t,
      authorize({
        ...realm,
        clientId: APP_CLIENT_ID,
        username: 'dev',
        password: TEST_PASSWORDS.dev,
        pkce: { method: 'plain', challenge: 'a'.repeat(43), verifier: 'a'.repeat(43) },
      }),
      { error: 'invalid_request' },
      'plain method',
    )

    const granted = await authorize({ ...realm, clientId: APP_CLIENT_ID, username: 'dev', password: TEST_PASSWORDS.dev })
    await expectOAuthError(
      t,
      exchangeCode({ ...realm, clientId: APP_CLIENT_ID, code: granted.code, redirectUri: granted.redirectUri, verifier: 'x'.repeat(43) }),
      { status: 400, error: 'invalid_grant' },
      'wrong code_verifier',
    )
    const again = await authorize({ ...realm, clientId: APP_CLIENT_ID, username: 'dev', password: TEST_PASSWORDS.dev })
    await expectOAuthError(
      t,
      exchangeCode({ ...realm, clientId: APP_CLIENT_ID, code: again.code, redirectUri: again.redirectUri, verifier: undefined }),
      { status: 400, error: /invalid_(grant|request)/ },
      'missing code_verifier',
    )
  })

  t.test('redirect URIs: any loopback port and path, nothing else', async (t) => {
    for (const redirectUri of ['http://127.0.0.1:51234/callback', 'http://localhost:8123/cb/x']) {
      const tokens = await getUserToken({ authUrl, username: 'dev', redirectUri })
      t.ok(tokens.access_token, `login with ${redirectUri}`)
    }
    await expectOAuthError(
      t,
      authorize({
        ...realm,
        clientId: APP_CLIENT_ID,
        username: 'dev',
        password: TEST_PASSWORDS.dev,
        redirectUri: 'http://evil.example/cb',
      }),
      { error: 'no_redirect' },
      'a foreign redirect_uri never receives a code',
    )
  })

  t.test('wrong password shows the login form again', async (t) => {
    await expectOAuthError(t, getUserToken({ authUrl, username: 'dev', password: 'wrong' }), { error: 'login_failed' }, 'wrong password')
    await expectOAuthError(t, getUserToken({ authUrl, username: 'nobody', password: 'x' }), { error: 'login_failed' }, 'unknown user')
  })

  t.test('client credentials: service account token', async (t) => {
    const tokens = await getClientCredentialsToken({ authUrl })
    t.equal(tokens.token_type, 'Bearer')
    t.equal(tokens.expires_in, 300)
    t.equal(tokens.refresh_expires_in, 0, 'no refresh token, as Keycloak')
    t.notOk(tokens.refresh_token)
    t.equal(tokens['not-before-policy'], 0)
    t.equal(tokens.scope, 'profile email')
    const claims = jwtClaims(tokens.access_token)
    t.equal(claims.sub, serviceAccountId('ies', CLI_CLIENT_ID), 'stable service-account uuid')
    t.match(claims.sub, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    t.equal(claims.preferred_username, `service-account-${CLI_CLIENT_ID}`)
    t.equal(claims.azp, CLI_CLIENT_ID)
    t.equal(claims.typ, 'Bearer')
    t.equal(claims.iss, idp.issuer)
    t.equal((claims.exp as number) - (claims.iat as number), 300)
    t.ok(await verifiedByCerts(realm, tokens.access_token))

    await expectOAuthError(
      t,
      getClientCredentialsToken({ authUrl, clientSecret: 'wrong' }),
      { status: 401, error: 'invalid_client' },
      'wrong secret',
    )
    await expectOAuthError(
      t,
      postForm(endpoint(realm, 'token'), { grant_type: 'client_credentials', client_id: APP_CLIENT_ID }),
      { status: 400 },
      'the public client has no client credentials grant',
    )
  })

  t.test('refresh: new tokens, lifetimes 300/1800, the old refresh token is spent', async (t) => {
    const first = await getUserToken({ authUrl, username: 'dev' })
    const stored = await idp.identityProvider.provider.RefreshToken.find(first.refresh_token!)
    t.equal(stored!.exp! - stored!.iat!, 1800, 'refresh token lives 1800 s')
    t.same(
      await introspect({ ...realm, clientId: CLI_CLIENT_ID, clientSecret: TEST_CLI_SECRET, token: first.refresh_token! }),
      { active: false },
      'only the client a refresh token was issued to may introspect it (as Keycloak)',
    )

    const second = await refreshToken({ authUrl, refreshToken: first.refresh_token! })
    for (const field of TOKEN_RESPONSE_FIELDS) t.ok(field in second, `refresh response has ${field}`)
    t.equal(second.expires_in, 300)
    t.equal(second.refresh_expires_in, 1800)
    t.equal(jwtClaims(second.access_token).sub, dev.id)
    t.equal(second.session_state, first.session_state, 'same session')
    t.not(second.access_token, first.access_token)
    await expectOAuthError(
      t,
      refreshToken({ authUrl, refreshToken: first.refresh_token! }),
      { status: 400, error: 'invalid_grant' },
      'reuse of a rotated refresh token',
    )
    await expectOAuthError(
      t,
      refreshToken({ authUrl, refreshToken: 'garbage' }),
      { status: 400, error: 'invalid_grant' },
      'unknown refresh token',
    )
  })

  t.test('introspection with Basic client credentials', async (t) => {
    const tokens = await getUserToken({ authUrl, username: 'admin' })
    const answer = await introspect({ ...realm, clientId: CLI_CLIENT_ID, clientSecret: TEST_CLI_SECRET, token: tokens.access_token })
    for (const field of INTROSPECTION_FIELDS) t.ok(field in answer, `introspection has ${field}`)
    t.equal(answer.active, true)
    t.equal(answer.sub, admin.id)
    t.equal(answer.preferred_username, 'admin')
    t.equal(answer.email, admin.email)
    t.equal(answer.email_verified, true)
    t.equal(answer.client_id, APP_CLIENT_ID)
    t.equal(answer.exp, jwtClaims(tokens.access_token).exp)

    await expectOAuthError(
      t,
      introspect({ ...realm, clientId: CLI_CLIENT_ID, clientSecret: 'wrong', token: tokens.access_token }),
      { status: 401, error: 'invalid_client' },
      'wrong Basic secret',
    )
    await expectOAuthError(
      t,
      introspect({ ...realm, clientId: 'nobody', clientSecret: TEST_CLI_SECRET, token: tokens.access_token }),
      { status: 401, error: 'invalid_client' },
      'unknown client',
    )
    await expectOAuthError(
      t,
      postForm(endpoint(realm, 'token/introspect'), { token: tokens.access_token }),
      { status: 401, error: 'invalid_client' },
      'no client authentication',
    )
    await expectOAuthError(
      t,
      postForm(
        endpoint(realm, 'token/introspect'),
        { token: tokens.access_token },
        { authorization: basicAuthorization(APP_CLIENT_ID, '') },
      ),
      { status: 401 },
      'the public client cannot introspect',
    )

    const [h, p] = tokens.access_token.split('.')
    const tampered = `${h}.${p}.${Buffer.from('forged').toString('base64url')}`
    for (const token of ['garbage', tampered]) {
      const inactive = await introspect({ ...realm, clientId: CLI_CLIENT_ID, clientSecret: TEST_CLI_SECRET, token })
      t.same(inactive, { active: false }, 'an invalid token is inactive')
    }
  })

  t.test('logout revokes the refresh token and the session', async (t) => {
    const tokens = await getUserToken({ authUrl, username: 'dev' })
    const response = await fetch(endpoint(realm, 'logout'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: APP_CLIENT_ID, refresh_token: tokens.refresh_token! }),
    })
    t.equal(response.status, 204)
    await expectOAuthError(
      t,
      refreshToken({ authUrl, refreshToken: tokens.refresh_token! }),
      { status: 400, error: 'invalid_grant' },
      'refresh after logout',
    )
    const asCli = { ...realm, clientId: CLI_CLIENT_ID, clientSecret: TEST_CLI_SECRET }
    t.same(await introspect({ ...asCli, token: tokens.access_token }), { active: false }, 'access token of the session inactive')
    await expectOAuthError(
      t,
      logout({ ...realm, clientId: APP_CLIENT_ID, refreshToken: tokens.refresh_token! }),
      { status: 400, error: 'invalid_grant' },
      'second logout',
    )

    const other = await getUserToken({ authUrl, username: 'dev' })
    await expectOAuthError(
      t,
      logout({ ...realm, clientId: CLI_CLIENT_ID, clientSecret: TEST_CLI_SECRET, refreshToken: other.refresh_token! }),
      { status: 400, error: 'invalid_grant' },
      "another client cannot end the app's session",
    )
    t.equal((await introspect({ ...asCli, token: other.access_token })).active, true, 'other sessions are untouched')
  })

  t.test('device code flow: the spec request (only client_id) with the device client, approved on the verification page', async (t) => {
    await expectOAuthError(
      t,
      requestDeviceCode({ ...realm, clientId: APP_CLIENT_ID }),
      { status: 400, error: 'unauthorized_client' },
      'the app client (PKCE) has no device grant, as in Keycloak',
    )

    const device = await requestDeviceCode({ ...realm, clientId: DEVICE_CLIENT_ID })
    t.type(device.device_code, 'string')
    t.type(device.user_code, 'string')
    t.equal(device.verification_uri, `${authUrl}/realms/ies/device`)
    t.equal(device.interval, 5, 'the polling interval, as the realm announces it')
    await expectOAuthError(
      t,
      pollDeviceToken({ ...realm, clientId: DEVICE_CLIENT_ID, deviceCode: device.device_code }),
      { status: 400, error: 'authorization_pending' },
      'pending before approval',
    )

    const page = await approveDevice(device, { username: 'dev', password: TEST_PASSWORDS.dev })
    t.match(page.page?.html, /signed in/i, 'success page')

    const tokens = await pollDeviceToken({ ...realm, clientId: DEVICE_CLIENT_ID, deviceCode: device.device_code })
    for (const field of TOKEN_RESPONSE_FIELDS) t.ok(field in tokens, `device token response has ${field}`)
    t.equal(tokens.expires_in, 300)
    t.equal(tokens.refresh_expires_in, 1800)
    t.equal(tokens.scope, 'profile email', "the default scopes: no openid was requested (Keycloak's answer too)")
    t.notOk(tokens.id_token, 'no ID token without openid')
    const claims = jwtClaims(tokens.access_token)
    for (const claim of ACCESS_TOKEN_CLAIMS) t.ok(claim in claims, `device access token has ${claim}`)
    t.equal(claims.sub, dev.id)
    t.equal(claims.azp, DEVICE_CLIENT_ID)
    t.same(claims.aud, [APP_CLIENT_ID, CLI_CLIENT_ID], 'the same audience as app tokens')
    t.same(claims.realm_access, { roles: ['user'] })
    t.equal(claims.preferred_username, 'dev')
    t.equal(claims.email, dev.email)
    t.equal(claims.scope, 'profile email')
    t.ok(await verifiedByCerts(realm, tokens.access_token))

    const refreshed = await refreshToken({ authUrl, clientId: DEVICE_CLIENT_ID, refreshToken: tokens.refresh_token! })
    t.equal(jwtClaims(refreshed.access_token).azp, DEVICE_CLIENT_ID, 'the device client refreshes its own tokens')
    t.equal(refreshed.scope, 'profile email')
    await logout({ ...realm, clientId: DEVICE_CLIENT_ID, refreshToken: refreshed.refresh_token! })
    await expectOAuthError(
      t,
      refreshToken({ authUrl, clientId: DEVICE_CLIENT_ID, refreshToken: refreshed.refresh_token! }),
      { status: 400, error: 'invalid_grant' },
      'refresh after logout',
    )
    await expectOAuthError(
      t,
      pollDeviceToken({ ...realm, clientId: DEVICE_CLIENT_ID, deviceCode: device.device_code }),
      { status: 400, error: 'invalid_grant' },
      'a device code is used once',
    )
  })

  t.test('device code flow: admin roles, and openid when the request asks for it', async (t) => {
    const device = await requestDeviceCode({ ...realm, clientId: DEVICE_CLIENT_ID, scope: 'openid' })
    await approveDevice(device, { username: 'admin', password: TEST_PASSWORDS.admin })
    const tokens = await pollDeviceToken({ ...realm, clientId: DEVICE_CLIENT_ID, deviceCode: device.device_code })
    t.equal(tokens.scope, 'openid profile email')
    t.type(tokens.id_token, 'string')
    const claims = jwtClaims(tokens.access_token)
    t.equal(claims.sub, admin.id)
    t.same(claims.realm_access, { roles: ['user', 'admin'] })
    t.same(claims.resource_access, { [APP_CLIENT_ID]: { roles: ['environment-admin'] } }, "the app client's roles, whichever client asked")
  })

  t.test('userinfo with the access token', async (t) => {
    const tokens = await getUserToken({ authUrl, username: 'admin' })
    const response = await fetch(endpoint(realm, 'userinfo'), { headers: { authorization: `Bearer ${tokens.access_token}` } })
    t.equal(response.status, 200)
    t.match(await response.json(), { sub: admin.id, preferred_username: 'admin', email: admin.email })
    const refused = await fetch(endpoint(realm, 'userinfo'), { headers: { authorization: 'Bearer nope' } })
    t.equal(refused.status, 401)
  })

  t.test('key rotation: a new kid signs, certs serves both', async (t) => {
    const before = await getUserToken({ authUrl, username: 'dev' })
    const oldKid = jwtHeader(before.access_token).kid
    const key = idp.rotateKeys()
    t.not(key.kid, oldKid)
    const after = await getUserToken({ authUrl, username: 'dev' })
    t.equal(jwtHeader(after.access_token).kid, key.kid, 'new tokens carry the new kid')
    const certs = (await (await fetch(endpoint(realm, 'certs'))).json()) as { keys: Array<Record<string, unknown>> }
    t.same(certs.keys.map((k) => k.kid).sort(), [oldKid, key.kid].sort())
    for (const k of certs.keys) t.notOk('d' in k || 'p' in k || 'q' in k, 'only public key material is served')
    t.ok(await verifiedByCerts(realm, after.access_token))
    t.ok(await verifiedByCerts(realm, before.access_token), 'tokens signed before still verify')
    const refreshed = await refreshToken({ authUrl, refreshToken: before.refresh_token! })
    t.equal(jwtHeader(refreshed.access_token).kid, key.kid, 'sessions survive the rotation')
  })
})
