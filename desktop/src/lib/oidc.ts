// OpenID Connect authorization code flow with PKCE (RFC 7636, S256) against the identity provider's
// Keycloak-style endpoints (spec "Authentication"). Runs unchanged in the browser, in Electron's
// main process and in Node tests: it needs only WebCrypto and fetch.

export interface OidcClientConfig {
  authUrl: string
  realm: string
  clientId: string
}

export interface TokenSet {
  accessToken: string
  refreshToken: string | null
  idToken: string | null
  /** Epoch milliseconds at which the access token expires. */
  expiresAt: number
  refreshExpiresAt: number | null
}

export class OidcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export const SCOPE = 'openid profile email'

export function endpoints(cfg: OidcClientConfig) {
  const base = `${cfg.authUrl.replace(/\/+$/, '')}/realms/${encodeURIComponent(cfg.realm)}/protocol/openid-connect`
  return {
    authorize: `${base}/auth`,
    token: `${base}/token`,
    logout: `${base}/logout`,
    userinfo: `${base}/userinfo`,
    certs: `${base}/certs`,
  }
}

function base64url(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** A high-entropy random string (43 chars for 32 bytes): usable as code_verifier, state, nonce. */
export function randomToken(bytes = 32): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)))
}

/** S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export async function codeChallenge(verifier: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return base64url(new Uint8Array(digest))
}

/** What must be kept between sending the user to the provider and the callback. */
export interface PendingLogin {
  state: string
  verifier: string
  nonce: string
  redirectUri: string
}

export async function beginLogin(cfg: OidcClientConfig, redirectUri: string): Promise<{ url: string; pending: PendingLogin }> {
  const pending: PendingLogin = { state: randomToken(), verifier: randomToken(48), nonce: randomToken(16), redirectUri }
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: cfg.clientId,
    redirect_uri: redirectUri,
    scope: SCOPE,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await codeChallenge(pending.verifier),
    code_challenge_method: 'S256',
  })
  return { url: `${endpoints(cfg).authorize}?${params}`, pending }
}

/** The authorization code from the callback URL, after checking `state`; provider errors become OidcError. */
export function codeFromCallback(callbackUrl: string, pending: Pick<PendingLogin, 'state'>): string {
  const params = new URL(callbackUrl).searchParams
  const error = params.get('error')
  if (error) throw new OidcError(error, params.get('error_description') ?? error)
  if (params.get('state') !== pending.state)
    throw new OidcError('invalid_state', 'The login response does not belong to this login attempt')
  const code = params.get('code')
  if (!code) throw new OidcError('invalid_request', 'The login response has no authorization code')
  return code
}

async function tokenRequest(
  cfg: OidcClientConfig,
  form: Record<string, string>,
  fetchImpl: typeof fetch,
  now: () => number,
): Promise<TokenSet> {
  const res = await fetchImpl(endpoints(cfg).token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ client_id: cfg.clientId, ...form }).toString(),
  })
  const body = (await res.json().catch(() => ({}))) as Record<string, any>
  if (!res.ok || typeof body.access_token !== 'string') {
    throw new OidcError(body.error ?? `http_${res.status}`, body.error_description ?? `The token request failed (${res.status})`)
  }
  const t = now()
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
    idToken: typeof body.id_token === 'string' ? body.id_token : null,
    expiresAt: t + Number(body.expires_in ?? 300) * 1000,
    refreshExpiresAt: body.refresh_expires_in ? t + Number(body.refresh_expires_in) * 1000 : null,
  }
}

export interface FlowDeps {
  fetch?: typeof fetch
  now?: () => number
}

const depsOf = (d: FlowDeps) => ({ fetch: d.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a)), now: d.now ?? Date.now })

/** Exchange the code with the verifier (grant_type=authorization_code). */
export function exchangeCode(cfg: OidcClientConfig, code: string, pending: PendingLogin, deps: FlowDeps = {}): Promise<TokenSet> {
  const d = depsOf(deps)
  return tokenRequest(
    cfg,
    { grant_type: 'authorization_code', code, redirect_uri: pending.redirectUri, code_verifier: pending.verifier },
    d.fetch,
    d.now,
  )
}

export function refreshTokens(cfg: OidcClientConfig, refreshToken: string, deps: FlowDeps = {}): Promise<TokenSet> {
  const d = depsOf(deps)
  return tokenRequest(cfg, { grant_type: 'refresh_token', refresh_token: refreshToken }, d.fetch, d.now)
}

/** End the session at the provider (POST logout with the refresh token). Failures are not fatal. */
export async function logoutAtProvider(cfg: OidcClientConfig, refreshToken: string, deps: FlowDeps = {}): Promise<boolean> {
  try {
    const res = await depsOf(deps).fetch(endpoints(cfg).logout, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: cfg.clientId, refresh_token: refreshToken }).toString(),
    })
    return res.ok
  } catch {
    return false
  }
}

/** The claims of a JWT, unverified (for display only: the server verifies every token). */
export function claimsOf(token: string): Record<string, unknown> {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')
    return JSON.parse(decodeURIComponent(escape(atob(part.padEnd(part.length + ((4 - (part.length % 4)) % 4), '=')))))
  } catch {
    return {}
  }
}
