// A real identity provider for tests: the embedded provider (oidc-provider) alone on a loopback
// port, as the "external" provider at AUTH_URL, with the development users and known passwords.
// Tokens come from the real flows over HTTP (scripted-login.ts, over the API contract's api/src/oauth.ts), never forged.
import { createPublicKey, createVerify } from 'node:crypto'
import type { Test } from 'tap'
import { defaultDevUsers } from '../../server/src/idp/index.ts'
import { startIdentityProvider, type RunningIdentityProvider, type StandaloneIdentityProviderOptions } from './standalone-idp.ts'
import {
  OAuthError,
  endpoint,
  jwtHeader,
  getClientCredentialsToken as clientCredentialsFlow,
  getUserToken as authorizationCodeFlow,
  refreshToken as refreshFlow,
  type AuthorizationCodeOptions,
  type RealmAddress,
  type TokenResponse,
} from './scripted-login.ts'

export {
  approveDevice,
  authorize,
  exchangeCode,
  introspect,
  jwtClaims,
  jwtHeader,
  logout,
  pollDeviceToken,
  requestDeviceCode,
  OAuthError,
  type TokenResponse,
} from './scripted-login.ts'

export const TEST_PASSWORDS = { dev: 'dev-password', admin: 'admin-password' } as const
export const TEST_CLI_SECRET = 'ies-cli-test-secret'
export const APP_CLIENT_ID = 'ies-app'
export const CLI_CLIENT_ID = 'ies-cli'
/** The public client of the device flow (request with only client_id), in both providers. */
export const DEVICE_CLIENT_ID = 'ies-device'
export const TEST_USERS = defaultDevUsers(TEST_PASSWORDS)

export type TestIdentityProvider = RunningIdentityProvider & { cliClientSecret: string }

export async function startTestIdentityProvider(overrides: Partial<StandaloneIdentityProviderOptions> = {}): Promise<TestIdentityProvider> {
  const running = await startIdentityProvider({
    realm: 'ies',
    appClientId: APP_CLIENT_ID,
    cliClientId: CLI_CLIENT_ID,
    cliClientSecret: TEST_CLI_SECRET,
    deviceClientId: DEVICE_CLIENT_ID,
    users: TEST_USERS,
    ...overrides,
  })
  return Object.assign(running, { cliClientSecret: overrides.cliClientSecret ?? TEST_CLI_SECRET })
}

/** A user's tokens via the real authorization code + PKCE flow (works against Keycloak too). */
export function getUserToken(
  opts: Omit<AuthorizationCodeOptions, 'clientId' | 'realm' | 'password'> & {
    clientId?: string
    realm?: string
    /** Default: the test password of `dev` or `admin`. */
    password?: string
  },
): Promise<TokenResponse> {
  const password = opts.password ?? TEST_PASSWORDS[opts.username as keyof typeof TEST_PASSWORDS]
  if (password === undefined) throw new Error(`no known password for ${opts.username}`)
  return authorizationCodeFlow({ ...opts, clientId: opts.clientId ?? APP_CLIENT_ID, realm: opts.realm ?? 'ies', password })
}

export function getClientCredentialsToken(opts: {
  authUrl: string
  realm?: string
  clientId?: string
  clientSecret?: string
}): Promise<TokenResponse> {
  return clientCredentialsFlow({
    authUrl: opts.authUrl,
    realm: opts.realm ?? 'ies',
    clientId: opts.clientId ?? CLI_CLIENT_ID,
    clientSecret: opts.clientSecret ?? TEST_CLI_SECRET,
  })
}

export function refreshToken(opts: {
  authUrl: string
  realm?: string
  clientId?: string
  refreshToken: string
  clientSecret?: string
}): Promise<TokenResponse> {
  return refreshFlow({ ...opts, realm: opts.realm ?? 'ies', clientId: opts.clientId ?? APP_CLIENT_ID })
}

/** Asserts that an identity-provider call fails with an OAuth error (status and `error` when given). */
export async function expectOAuthError(
  t: Pick<Test, 'fail' | 'type' | 'equal' | 'match'>,
  promise: Promise<unknown>,
  expected: { status?: number; error?: string | RegExp },
  message: string,
): Promise<void> {
  try {
    await promise
    t.fail(`${message}: it succeeded`)
  } catch (err) {
    t.type(err, OAuthError, message)
    const e = err as OAuthError
    if (expected.status !== undefined) t.equal(e.status, expected.status, `${message}: status`)
    if (expected.error !== undefined) t.match(e.error, expected.error, `${message}: error`)
  }
}

/** Whether an RS256 JWT verifies with a key of the realm's certs endpoint (as the IES server checks it). */
export async function verifiedByCerts(address: RealmAddress, token: string): Promise<boolean> {
  const { keys } = (await (await fetch(endpoint(address, 'certs'))).json()) as { keys: Array<{ kid: string; kty: string }> }
  const header = jwtHeader(token)
  const jwk = keys.find((key) => key.kid === header.kid)
  if (!jwk || header.alg !== 'RS256') return false
  const [h, p, s] = token.split('.')
  return createVerify('RSA-SHA256')
    .update(`${h}.${p}`)
    .verify(createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(s ?? '', 'base64url'))
}
