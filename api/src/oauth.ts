// The client side of the identity provider's OAuth endpoints over HTTP, for the CLI, the desktop
// (browser and Electron's main process), `npm run token` and the tests: the authorization code flow
// with PKCE (RFC 7636, S256), the device flow (RFC 8628), client credentials, refresh, introspection,
// logout, and reading a JWT's claims unverified. Keycloak and the embedded provider alike, both
// addressed by `{auth_url}/realms/{realm}`. Only fetch, WebCrypto, atob/btoa: browser-safe.

export interface RealmAddress {
  /** `{auth_url}`: the identity provider's base URL, without `/realms/...`. */
  authUrl: string
  realm: string
}

/** A client of the realm (a confidential client has a secret). */
export interface OAuthClient extends RealmAddress {
  clientId: string
  clientSecret?: string
}

/** What the flows need from their surroundings (tests pass a clock and a fetch of their own). */
export interface FlowDeps {
  fetch?: typeof fetch
  now?: () => number
}

/** The token endpoint's answer, as the provider sends it. */
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

/** Tokens as a session keeps them, with absolute expiry times. */
export interface TokenSet {
  accessToken: string
  refreshToken: string | null
  idToken: string | null
  /** Epoch milliseconds at which the access token expires. */
  expiresAt: number
  refreshExpiresAt: number | null
}

export interface DeviceAuthorization {
  device_code: string
  user_code: string
  verification_uri: string
  verification_uri_complete?: string
  expires_in: number
  interval?: number
}

/** What must be kept between sending the user to the provider and the callback. */
export interface PendingLogin {
  state: string
  verifier: string
  nonce: string
  redirectUri: string
}

/**
 * An OAuth error answer (`error`, `error_description`), an unexpected answer, or a callback that does
 * not belong to the login (status 0: nothing came from the provider's token endpoint).
 */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description?: string,
  ) {
    super(`${error}${description ? `: ${description}` : ''}${status ? ` (HTTP ${status})` : ''}`)
    this.name = 'OAuthError'
  }
}

/** The scopes of an interactive sign-in. */
export const SCOPE = 'openid profile email'

export function realmUrl({ authUrl, realm }: RealmAddress): string {
  return `${authUrl.replace(/\/+$/, '')}/realms/${encodeURIComponent(realm)}`
}

export function endpoint(
  address: RealmAddress,
  name: 'auth' | 'token' | 'auth/device' | 'token/introspect' | 'logout' | 'certs' | 'userinfo',
): string {
  return `${realmUrl(address)}/protocol/openid-connect/${name}`
}

const defaultFetch = (...args: Parameters<typeof fetch>) => fetch(...args)

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
  deps: FlowDeps = {},
): Promise<Record<string, unknown>> {
  const body = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.set(name, value)
  const response = await (deps.fetch ?? defaultFetch)(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: body.toString(),
  })
  if (response.status === 204) return {}
  const json = await readJson(response)
  if (!response.ok) {
    throw new OAuthError(response.status, String(json.error ?? 'http_error'), json.error_description as string | undefined)
  }
  return json
}

async function tokenRequest(client: OAuthClient, form: Record<string, string | undefined>, deps: FlowDeps): Promise<TokenResponse> {
  const json = await postForm(
    endpoint(client, 'token'),
    { client_id: client.clientId, client_secret: client.clientSecret, ...form },
    {},
    deps,
  )
  if (typeof json.access_token !== 'string') throw new OAuthError(200, 'invalid_response', 'the answer has no access_token')
  return json as unknown as TokenResponse
}

/** A token answer as a TokenSet: the lifetimes made absolute at `now`. */
export function tokenSetOf(tokens: TokenResponse, now = Date.now()): TokenSet {
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? null,
    idToken: tokens.id_token ?? null,
    expiresAt: now + Number(tokens.expires_in ?? 300) * 1000,
    refreshExpiresAt: tokens.refresh_expires_in ? now + Number(tokens.refresh_expires_in) * 1000 : null,
  }
}

export function basicAuthorization(clientId: string, clientSecret: string): string {
  const part = (value: string) => encodeURIComponent(value)
  // Both parts are URL-encoded, so ASCII: btoa takes them as they are.
  return `Basic ${btoa(`${part(clientId)}:${part(clientSecret)}`)}`
}

function base64url(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64url(part: string): string {
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/')
  const binary = atob(b64.padEnd(b64.length + ((4 - (b64.length % 4)) % 4), '='))
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
}

/** A high-entropy random string (43 characters for 32 bytes): a code_verifier, state or nonce. */
export function randomToken(bytes = 32): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)))
}

/** S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export async function codeChallenge(verifier: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return base64url(new Uint8Array(digest))
}

export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomToken(48)
  return { verifier, challenge: await codeChallenge(verifier) }
}

/** The authorization request of a sign-in (PKCE S256, state, nonce) and what to keep until the callback. */
export async function beginLogin(client: OAuthClient, redirectUri: string): Promise<{ url: string; pending: PendingLogin }> {
  const { verifier, challenge } = await pkcePair()
  const pending: PendingLogin = { state: randomToken(), verifier, nonce: randomToken(16), redirectUri }
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: SCOPE,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  return { url: `${endpoint(client, 'auth')}?${params}`, pending }
}

/** The authorization code from the callback URL, after checking `state`; a provider's error becomes an OAuthError. */
export function codeFromCallback(callbackUrl: string, pending: Pick<PendingLogin, 'state'>): string {
  const params = new URL(callbackUrl).searchParams
  const error = params.get('error')
  if (error) throw new OAuthError(0, error, params.get('error_description') ?? undefined)
  if (params.get('state') !== pending.state)
    throw new OAuthError(0, 'invalid_state', 'The login response does not belong to this login attempt')
  const code = params.get('code')
  if (!code) throw new OAuthError(0, 'invalid_request', 'The login response has no authorization code')
  return code
}

/** grant_type=authorization_code, with the PKCE verifier. */
export function exchangeCode(
  opts: OAuthClient & { code: string; redirectUri: string; verifier?: string },
  deps: FlowDeps = {},
): Promise<TokenResponse> {
  return tokenRequest(
    opts,
    { grant_type: 'authorization_code', code: opts.code, redirect_uri: opts.redirectUri, code_verifier: opts.verifier },
    deps,
  )
}

/** The end of a sign-in: the callback checked, the code exchanged, the tokens as a TokenSet. */
export async function completeLogin(
  client: OAuthClient,
  callbackUrl: string,
  pending: PendingLogin,
  deps: FlowDeps = {},
): Promise<TokenSet> {
  const code = codeFromCallback(callbackUrl, pending)
  const tokens = await exchangeCode({ ...client, code, redirectUri: pending.redirectUri, verifier: pending.verifier }, deps)
  return tokenSetOf(tokens, (deps.now ?? Date.now)())
}

export function getClientCredentialsToken(
  opts: OAuthClient & { clientSecret: string; scope?: string },
  deps: FlowDeps = {},
): Promise<TokenResponse> {
  return tokenRequest(opts, { grant_type: 'client_credentials', scope: opts.scope }, deps)
}

export function refreshToken(opts: OAuthClient & { refreshToken: string }, deps: FlowDeps = {}): Promise<TokenResponse> {
  return tokenRequest(opts, { grant_type: 'refresh_token', refresh_token: opts.refreshToken }, deps)
}

/**
 * The device code request. The spec's form has only `client_id` (of the device client, `ies-device`);
 * both providers then grant the default scopes `profile email`. A `scope` with `openid` adds `openid`.
 */
export async function requestDeviceCode(opts: OAuthClient & { scope?: string }, deps: FlowDeps = {}): Promise<DeviceAuthorization> {
  return (await postForm(
    endpoint(opts, 'auth/device'),
    { client_id: opts.clientId, scope: opts.scope },
    {},
    deps,
  )) as unknown as DeviceAuthorization
}

/** One poll of the token endpoint with the device code (throws `authorization_pending` until approved). */
export function pollDeviceToken(opts: OAuthClient & { deviceCode: string }, deps: FlowDeps = {}): Promise<TokenResponse> {
  return tokenRequest(opts, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: opts.deviceCode }, deps)
}

export function introspect(
  opts: OAuthClient & { clientSecret: string; token: string },
  deps: FlowDeps = {},
): Promise<Record<string, unknown>> {
  const authorization = basicAuthorization(opts.clientId, opts.clientSecret)
  return postForm(endpoint(opts, 'token/introspect'), { token: opts.token }, { authorization }, deps)
}

/** Ends the session at the provider (POST logout with the refresh token); throws when it refuses. */
export async function logout(opts: OAuthClient & { refreshToken: string }, deps: FlowDeps = {}): Promise<void> {
  const fields = { client_id: opts.clientId, client_secret: opts.clientSecret, refresh_token: opts.refreshToken }
  await postForm(endpoint(opts, 'logout'), fields, {}, deps)
}

function jwtPart(token: string, index: number): Record<string, unknown> {
  try {
    const value = JSON.parse(fromBase64url(token.split('.')[index] ?? '')) as unknown
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** The claims of a JWT, unverified (for display and tests: the server verifies every token); `{}` when unreadable. */
export function jwtClaims(token: string): Record<string, unknown> {
  return jwtPart(token, 1)
}

export function jwtHeader(token: string): Record<string, unknown> {
  return jwtPart(token, 0)
}
