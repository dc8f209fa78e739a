// The client side of the identity provider's OAuth endpoints over real HTTP: token requests (code
// exchange, client credentials, refresh, device code), introspection, logout and unverified JWT
// reading. Used by the `ies` CLI, `npm run token` and the tests; works against the embedded provider
// and Keycloak alike, both addressed by `{auth_url}/realms/{realm}`. The scripted browser sign-in
// the tests and scripts drive lives with the tests (test/harness/scripted-login.ts).
import { createHash, randomBytes } from 'node:crypto'

export interface RealmAddress {
  /** `{auth_url}`: the identity provider's base URL, without `/realms/...`. */
  authUrl: string
  realm: string
}
export interface TokenResponse {
  access_token: string
  expires_in: number
  refresh_expires_in: number
  refresh_token?: string
  token_type: string
  id_token?: string
  'not-before-policy'?: number
  session_state?: string
  scope: string
}
/** An OAuth error answer (`error`, `error_description`) or an unexpected status. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description?: string,
  ) {
    super(`${error}${description ? `: ${description}` : ''} (HTTP ${status})`)
    this.name = 'OAuthError'
  }
}
export function realmUrl({ authUrl, realm }: RealmAddress): string {
  return `${authUrl.replace(/\/+$/, '')}/realms/${encodeURIComponent(realm)}`
}
export function endpoint(
  address: RealmAddress,
  name: 'auth' | 'token' | 'auth/device' | 'token/introspect' | 'logout' | 'certs' | 'userinfo',
): string {
  return `${realmUrl(address)}/protocol/openid-connect/${name}`
}
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}
async function readJson(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text()
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    throw new OAuthError(response.status, 'invalid_response', `not JSON (${response.headers.get('content-type') ?? 'no content-type'})`)
  }
}
/** POST `application/x-www-form-urlencoded`; answers the parsed JSON, throws OAuthError on an error status. */
export async function postForm(
  url: string,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const body = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.set(name, value)
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body,
  })
  if (response.status === 204) return {}
  const json = await readJson(response)
  if (!response.ok) {
    throw new OAuthError(response.status, String(json.error ?? 'http_error'), json.error_description as string | undefined)
  }
  return json
}
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const part = (value: string) => encodeURIComponent(value)
  return `Basic ${Buffer.from(`${part(clientId)}:${part(clientSecret)}`).toString('base64')}`
}
export async function exchangeCode(
  address: RealmAddress,
  opts: { clientId: string; code: string; redirectUri: string; verifier: string | undefined; clientSecret?: string },
): Promise<TokenResponse> {
  return (await postForm(endpoint(address, 'token'), {
    grant_type: 'authorization_code',
    client_id: opts.clientId,
    client_secret: opts.clientSecret,
    code: opts.code,
    redirect_uri: opts.redirectUri,
    code_verifier: opts.verifier,
  })) as unknown as TokenResponse
}
export async function getClientCredentialsToken(
  opts: RealmAddress & { clientId: string; clientSecret: string; scope?: string },
): Promise<TokenResponse> {
  return (await postForm(endpoint(opts, 'token'), {
    grant_type: 'client_credentials',
    client_id: opts.clientId,
    client_secret: opts.clientSecret,
    scope: opts.scope,
  })) as unknown as TokenResponse
}
export async function refreshToken(
  opts: RealmAddress & { clientId: string; refreshToken: string; clientSecret?: string },
): Promise<TokenResponse> {
  return (await postForm(endpoint(opts, 'token'), {
    grant_type: 'refresh_token',
    client_id: opts.clientId,
    client_secret: opts.clientSecret,
    refresh_token: opts.refreshToken,
  })) as unknown as TokenResponse
}
export interface DeviceAuthorization {
  device_code: string
  user_code: string
  verification_uri: string
  verification_uri_complete?: string
  expires_in: number
  interval?: number
}
/**
 * The device code request. The spec's form has only `client_id` (of the device client, `ies-device`);
 * both providers then grant the default scopes `profile email`. A `scope` with `openid` adds `openid`.
 */
export async function requestDeviceCode(opts: RealmAddress & { clientId: string; scope?: string }): Promise<DeviceAuthorization> {
  return (await postForm(endpoint(opts, 'auth/device'), {
    client_id: opts.clientId,
    scope: opts.scope,
  })) as unknown as DeviceAuthorization
}
/** One poll of the token endpoint with the device code (throws `authorization_pending` until approved). */
export async function pollDeviceToken(opts: RealmAddress & { clientId: string; deviceCode: string }): Promise<TokenResponse> {
  return (await postForm(endpoint(opts, 'token'), {
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    client_id: opts.clientId,
    device_code: opts.deviceCode,
  })) as unknown as TokenResponse
}
export async function introspect(
  opts: RealmAddress & { clientId: string; clientSecret: string; token: string },
): Promise<Record<string, unknown>> {
  return postForm(
    endpoint(opts, 'token/introspect'),
    { token: opts.token },
    {
      authorization: basicAuthorization(opts.clientId, opts.clientSecret),
    },
  )
}
export async function logout(opts: RealmAddress & { clientId: string; refreshToken: string; clientSecret?: string }): Promise<void> {
  await postForm(endpoint(opts, 'logout'), {
    client_id: opts.clientId,
    client_secret: opts.clientSecret,
    refresh_token: opts.refreshToken,
  })
}
/** The claims of a JWT, unverified (for display and tests). */
export function jwtClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
}
export function jwtHeader(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
}
