// Interop with a real Keycloak (scripts/keycloak/install.sh, realm scripts/keycloak/realm.json):
// the same client flows work against it, its tokens have the spec's shape (as the embedded
// provider's do), and tokens from Keycloak via PKCE and via the spec's device flow (the device
// client `ies-device`, approved on Keycloak's verification page) are accepted by the real IES server.
// Outside CI the test is skipped when Keycloak is not installed; with CI set it fails instead.
import t, { type Test } from 'tap'
import { startTestApp } from '../../harness/app.ts'
import {
  APP_CLIENT_ID,
  CLI_CLIENT_ID,
  DEVICE_CLIENT_ID,
  TEST_PASSWORDS,
  TEST_USERS,
  approveDevice,
  authorize,
  expectOAuthError,
  getClientCredentialsToken,
  getUserToken,
  introspect,
  jwtClaims,
  logout,
  pollDeviceToken,
  refreshToken,
  requestDeviceCode,
  startTestIdentityProvider,
  verifiedByCerts,
  type TokenResponse,
} from '../../harness/identity.ts'
import type { RealmAddress } from '../../harness/scripted-login.ts'
import { KEYCLOAK_CLI_SECRET, keycloakHome, startKeycloak } from '../../harness/keycloak.ts'

const SPEC_TOKEN_RESPONSE = [
  'access_token',
  'expires_in',
  'refresh_expires_in',
  'refresh_token',
  'token_type',
  'not-before-policy',
  'session_state',
  'scope',
]
const SPEC_CLAIMS = [
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
const SPEC_INTROSPECTION = ['active', 'sub', 'preferred_username', 'email', 'email_verified', 'exp', 'iat', 'client_id']
const inCi = !!process.env.CI && process.env.CI !== 'false'
const admin = TEST_USERS.find((user) => user.username === 'admin')!
const dev = TEST_USERS.find((user) => user.username === 'dev')!
/** The user claims that must not depend on the provider (normalized where order may differ). */
const SAME_USER_CLAIMS = [
  'sub',
  'typ',
  'azp',
  'aud',
  'acr',
  'scope',
  'preferred_username',
  'email',
  'email_verified',
  'given_name',
  'family_name',
  'realm_access',
  'resource_access',
]
const normalizeClaim = (claim: string, value: unknown) =>
  claim === 'realm_access'
    ? { roles: [...(value as { roles: string[] }).roles].sort() }
    : claim === 'scope'
      ? String(value).split(' ').sort()
      : claim === 'aud'
        ? [value].flat().sort()
        : value
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Whether `left` (an `expires_in`) is what is left of `lifespan` seconds counted from a moment after
 * `since`: Keycloak counts from the session's start, and on a loaded machine seconds can pass between
 * the login and the token.
 */
function leftOf(lifespan: number, left: number, since: number): boolean {
  const passed = Math.ceil((Date.now() - since) / 1000) + 1
  return left <= lifespan && left >= lifespan - passed
}

/**
 * The spec's device flow as a terminal runs it: the request with only client_id, one poll while the
 * person has not approved yet, the person's approval on the verification page, one more poll once the
 * announced interval has passed (Keycloak answers `slow_down` to earlier polls).
 */
async function deviceFlow(t: Test, address: RealmAddress, who: { username: string; password: string }): Promise<TokenResponse> {
  const device = await requestDeviceCode({ ...address, clientId: DEVICE_CLIENT_ID })
  t.type(device.user_code, 'string', `${address.authUrl}: user_code`)
  t.equal(device.verification_uri, `${address.authUrl}/realms/${address.realm}/device`, 'verification_uri')
  t.equal(device.interval, 5, 'interval')
  await expectOAuthError(
    t,
    pollDeviceToken({ ...address, clientId: DEVICE_CLIENT_ID, deviceCode: device.device_code }),
    { status: 400, error: 'authorization_pending' },
    `${who.username}: pending before approval`,
  )
  // The interval runs from the poll as the provider took it, which is before its answer came back
  // (timed from the request instead, a slow first answer made the second poll too early: slow_down).
  const polledAt = Date.now()
  const approval = await approveDevice(device, who)
  t.match(approval.page?.html, /signed in|login successful/i, `${who.username}: the verification page says the device is signed in`)
  await sleep(Math.max(0, polledAt + (device.interval ?? 5) * 1000 + 500 - Date.now()))
  return pollDeviceToken({ ...address, clientId: DEVICE_CLIENT_ID, deviceCode: device.device_code })
}

// Keycloak's start in dev mode took 74-128 s on the development machine (under load); allow 10 minutes.
t.setTimeout(600_000)

if (!keycloakHome()) {
  if (inCi) t.fail('Keycloak is not installed: CI must run scripts/keycloak/install.sh before the tests')
  else t.plan(0, 'Keycloak is not installed (run scripts/keycloak/install.sh); skipped outside CI')
} else {
  t.test('Keycloak interop', async (t) => {
    const kc = await startKeycloak()
    t.teardown(() => kc.close())
    t.comment(`Keycloak started in ${kc.startMs} ms`)
    const realm = { authUrl: kc.authUrl, realm: kc.realm }
    const asCli = { ...realm, clientId: CLI_CLIENT_ID, clientSecret: KEYCLOAK_CLI_SECRET }
    const embedded = await startTestIdentityProvider()
    t.teardown(() => embedded.close())

    t.test('PKCE login: the spec fields and claims, like the embedded provider', async (t) => {
      const loginAt = Date.now()
      const tokens = await getUserToken({ ...realm, username: 'admin', redirectUri: 'http://127.0.0.1:49152/callback' })
      const mine = await getUserToken({ authUrl: embedded.authUrl, username: 'admin' })
      for (const field of SPEC_TOKEN_RESPONSE) {
        t.ok(field in tokens, `Keycloak token response has ${field}`)
        t.ok(field in mine, `embedded token response has ${field}`)
      }
      t.ok(leftOf(300, tokens.expires_in, loginAt), `expires_in ${tokens.expires_in}`)
      t.ok(leftOf(1800, tokens.refresh_expires_in, loginAt), `refresh_expires_in ${tokens.refresh_expires_in}`)
      const words = (scope: unknown) => String(scope).split(' ').sort()
      t.same(words(tokens.scope), words(mine.scope))
      const claims = jwtClaims(tokens.access_token)
      const mineClaims = jwtClaims(mine.access_token)
      for (const claim of SPEC_CLAIMS) {
        t.ok(claim in claims, `Keycloak access token has ${claim}`)
        t.ok(claim in mineClaims, `embedded access token has ${claim}`)
      }
      for (const claim of SAME_USER_CLAIMS) {
        t.same(normalizeClaim(claim, claims[claim]), normalizeClaim(claim, mineClaims[claim]), `same ${claim} from both providers`)
      }
      t.equal(claims.sub, admin.id, 'the realm file fixes the user ids')
      t.ok(await verifiedByCerts(realm, tokens.access_token))
    })

    t.test('PKCE is required by Keycloak too', async (t) => {
      await expectOAuthError(
        t,
        authorize({ ...realm, clientId: APP_CLIENT_ID, username: 'dev', password: TEST_PASSWORDS.dev, pkce: false }),
        { error: 'invalid_request' },
        'no code_challenge',
      )
    })

    t.test('client credentials, refresh, introspection, logout', async (t) => {
      const service = await getClientCredentialsToken({ ...realm, clientSecret: KEYCLOAK_CLI_SECRET })
      const serviceClaims = jwtClaims(service.access_token)
      t.equal(serviceClaims.preferred_username, `service-account-${CLI_CLIENT_ID}`)
      t.match(serviceClaims.sub, /^[0-9a-f-]{36}$/)
      t.equal(service.refresh_expires_in, 0)

      const loginAt = Date.now()
      const tokens = await getUserToken({ ...realm, username: 'dev' })
      const refreshed = await refreshToken({ ...realm, refreshToken: tokens.refresh_token! })
      t.equal(jwtClaims(refreshed.access_token).sub, dev.id)
      t.ok(leftOf(1800, refreshed.refresh_expires_in, loginAt), `refresh_expires_in ${refreshed.refresh_expires_in}`)

      const answer = await introspect({ ...asCli, token: refreshed.access_token })
      for (const field of SPEC_INTROSPECTION) t.ok(field in answer, `Keycloak introspection has ${field}`)
      t.equal(answer.active, true)
      t.equal(answer.client_id, APP_CLIENT_ID)
      await expectOAuthError(
        t,
        introspect({ ...asCli, clientSecret: 'wrong', token: refreshed.access_token }),
        { status: 401 },
        'wrong Basic secret',
      )

      await logout({ ...realm, clientId: APP_CLIENT_ID, refreshToken: refreshed.refresh_token! })
      await expectOAuthError(
        t,
        refreshToken({ ...realm, refreshToken: refreshed.refresh_token! }),
        { status: 400, error: 'invalid_grant' },
        'refresh after logout',
      )
      t.equal((await introspect({ ...asCli, token: refreshed.access_token })).active, false, 'access token inactive after logout')
    })

    t.test(
      'device flow: the spec request (only client_id) with the device client, as the embedded provider, accepted by IES',
      async (t) => {
        await expectOAuthError(
          t,
          requestDeviceCode({ ...realm, clientId: APP_CLIENT_ID }),
          { status: 400, error: 'unauthorized_client' },
          'the app client keeps its PKCE rule and has no device grant',
        )

        const mineAddress = { authUrl: embedded.authUrl, realm: 'ies' }
        const people = [dev, admin].map((user) => ({ username: user.username, password: TEST_PASSWORDS[user.username as 'dev' | 'admin'] }))
        // Both users on both providers at once: each flow waits out the polling interval.
        const flowsAt = Date.now()
        const [kcDev, kcAdmin, mineDev, mineAdmin] = await Promise.all([
          ...people.map((who) => deviceFlow(t, realm, who)),
          ...people.map((who) => deviceFlow(t, mineAddress, who)),
        ])
        for (const [label, tokens, mine, user] of [
          ['dev', kcDev, mineDev, dev],
          ['admin', kcAdmin, mineAdmin, admin],
        ] as const) {
          for (const field of SPEC_TOKEN_RESPONSE) {
            t.ok(field in tokens, `${label}: Keycloak device token response has ${field}`)
            t.ok(field in mine, `${label}: embedded device token response has ${field}`)
          }
          t.equal(tokens.token_type, 'Bearer')
          t.ok(leftOf(300, tokens.expires_in, flowsAt), `expires_in ${tokens.expires_in}`)
          t.same(String(tokens.scope).split(' ').sort(), ['email', 'profile'], 'the default scopes: the request asked for none')
          t.same(String(tokens.scope).split(' ').sort(), String(mine.scope).split(' ').sort(), 'the same scope from both providers')
          const claims = jwtClaims(tokens.access_token)
          const mineClaims = jwtClaims(mine.access_token)
          for (const claim of SPEC_CLAIMS) t.ok(claim in claims, `${label}: Keycloak device access token has ${claim}`)
          for (const claim of SAME_USER_CLAIMS) {
            t.same(
              normalizeClaim(claim, claims[claim]),
              normalizeClaim(claim, mineClaims[claim]),
              `${label}: same ${claim} from both providers`,
            )
          }
          t.equal(claims.sub, user.id)
          t.equal(claims.azp, DEVICE_CLIENT_ID)
          t.ok([claims.aud].flat().includes(APP_CLIENT_ID), 'the app client is in aud (AUTH_AUDIENCE)')
          t.ok(await verifiedByCerts(realm, tokens.access_token))
        }
        t.same(
          jwtClaims(kcAdmin.access_token).resource_access,
          { [APP_CLIENT_ID]: { roles: ['environment-admin'] } },
          "admin: the app client's role",
        )
        t.notOk(jwtClaims(kcDev.access_token).resource_access, 'dev: no client roles')

        const refreshed = await refreshToken({ ...realm, clientId: DEVICE_CLIENT_ID, refreshToken: kcDev.refresh_token! })
        t.equal(jwtClaims(refreshed.access_token).azp, DEVICE_CLIENT_ID, 'the device client refreshes its tokens')

        // The strictest server setting: AUTH_AUDIENCE names the app client.
        const { app } = await startTestApp(t, { AUTH_URL: kc.authUrl, AUTH_REALM: kc.realm, AUTH_AUDIENCE: APP_CLIENT_ID })
        const call = (url: string, tokens: TokenResponse) =>
          app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${tokens.access_token}` } })
        const me = await call('/api/users/me', kcDev)
        t.equal(me.statusCode, 200, 'dev: GET /api/users/me with the device token')
        t.match(me.json().data, { identityProviderId: dev.id, username: 'dev', email: dev.email })
        t.equal((await call('/api/users/me', refreshed)).statusCode, 200, 'the refreshed device token too')
        t.equal((await call('/api/users', kcDev)).statusCode, 403, 'dev is no admin')
        const users = await call('/api/users', kcAdmin)
        t.equal(users.statusCode, 200, 'admin: GET /api/users with the device token')
      },
    )

    t.test('a Keycloak token works against the IES server', async (t) => {
      const { app } = await startTestApp(t, { AUTH_URL: kc.authUrl, AUTH_REALM: kc.realm })
      for (const user of [admin, dev]) {
        const { access_token } = await getUserToken({ ...realm, username: user.username })
        const response = await app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${access_token}` } })
        t.equal(response.statusCode, 200, `${user.username}: /api/users/me`)
        t.match(response.json().data, { identityProviderId: user.id, username: user.username, email: user.email })
      }
      const forged = await app.inject({
        method: 'GET',
        url: '/api/users/me',
        headers: { authorization: `Bearer ${(await getUserToken({ authUrl: embedded.authUrl, username: 'dev' })).access_token}` },
      })
      t.equal(forged.statusCode, 401, "another provider's token is refused")
    })

    t.test("only Keycloak's access tokens open the API: not its ID or refresh tokens, nor one in the URL", async (t) => {
      const { app } = await startTestApp(t, { AUTH_URL: kc.authUrl, AUTH_REALM: kc.realm })
      const me = async (token: string | undefined, query = '') =>
        (await app.inject({ method: 'GET', url: `/api/users/me${query}`, headers: token ? { authorization: `Bearer ${token}` } : {} }))
          .statusCode
      const tokens = await getUserToken({ ...realm, username: dev.username, scope: 'openid profile email' })
      t.equal(await me(tokens.access_token), 200, 'the access token opens the API')
      t.type(tokens.id_token, 'string', 'an ID token was issued')
      t.equal(await me(tokens.id_token), 401, 'the ID token is refused')
      t.equal(await me(tokens.refresh_token), 401, 'the refresh token is refused')
      t.equal(await me(undefined, `?access_token=${tokens.access_token}`), 401, 'the access token in the URL is refused')
      const service = await getClientCredentialsToken(asCli)
      t.equal(await me(service.access_token), 200, 'a client-credentials access token of ies-cli opens the API')
    })

    t.test("Keycloak's groups claim gives team roles (TEAMS_GROUPS_CLAIM)", async (t) => {
      const { app } = await startTestApp(t, { AUTH_URL: kc.authUrl, AUTH_REALM: kc.realm, TEAMS_GROUPS_CLAIM: 'groups' })
      const { access_token } = await getUserToken({ ...realm, username: dev.username })
      t.same(jwtClaims(access_token).groups, ['/ies/platform/operator'], "the realm file's group, by its full path")
      const teams = await app.inject({ method: 'GET', url: '/api/teams', headers: { authorization: `Bearer ${access_token}` } })
      t.same(
        teams.json().data.map((team: { name: string; role: string }) => [team.name, team.role]),
        [['platform', 'operator']],
      )
    })
  })
}
