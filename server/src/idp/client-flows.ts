// The client side of the identity provider's flows over real HTTP, for tests and scripts: sign-in
// with authorization code + PKCE (driving the login form like a browser: manual redirects, a cookie
// jar), client credentials, refresh, device code, introspection and logout. Works against the
// embedded provider and against Keycloak, since both are addressed by `{auth_url}/realms/{realm}`.
import { createHash, randomBytes } from 'node:crypto'
import { parseForms, type HtmlForm } from './html-forms.ts'

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

/** Cookies by name and path, sent back to the host that set them (one host per flow). */
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>()

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair!.indexOf('=')
      if (eq < 1) continue
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      let path = '/'
      let expired = false
      for (const attr of attrs) {
        const [key, ...rest] = attr.split('=')
        const k = key!.trim().toLowerCase()
        const v = rest.join('=').trim()
        if (k === 'path' && v) path = v
        if (k === 'max-age' && Number(v) <= 0) expired = true
        if (k === 'expires' && Date.parse(v) <= Date.now()) expired = true
      }
      const key = `${name}\u0000${path}`
      if (expired || value === '') this.cookies.delete(key)
      else this.cookies.set(key, { value, path })
    }
  }

  header(url: string): string | undefined {
    const { pathname } = new URL(url)
    const parts: string[] = []
    for (const [key, { value, path }] of this.cookies) {
      const prefix = path.endsWith('/') ? path : `${path}/`
      if (pathname === path || pathname.startsWith(prefix)) parts.push(`${key.split('\u0000')[0]}=${value}`)
    }
    return parts.length > 0 ? parts.join('; ') : undefined
  }
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

export interface Credentials {
  username: string
  password: string
}

/** Where a scripted browser session ended: a redirect matching `stopAt`, or the last page. */
export interface BrowseResult {
  redirect?: string
  page?: { url: string; status: number; html: string }
}

const MAX_STEPS = 20

function submitValues(form: HtmlForm, credentials: Credentials): { values: URLSearchParams; isLogin: boolean } {
  const values = new URLSearchParams()
  const isLogin = form.fields.some((field) => field.type === 'password')
  for (const field of form.fields) {
    if (isLogin && field.type === 'password') values.append(field.name, credentials.password)
    else if (isLogin && (field.name === 'username' || field.name === 'email' || field.name === 'login')) {
      values.append(field.name, credentials.username)
    } else values.append(field.name, field.value)
  }
  const button = form.buttons.find((candidate) => !/cancel|abort|deny|reject/i.test(candidate.name))
  if (button) values.append(button.name, button.value)
  return { values, isLogin }
}

/**
 * Acts as a browser from `startUrl`: follows redirects, signs in on a login form, submits the
 * provider's other forms (device code entry, confirmation, consent) with their default values,
 * until a redirect satisfies `stopAt` or a page without a form is reached.
 */
export async function browse(startUrl: string, credentials: Credentials, stopAt: (url: string) => boolean): Promise<BrowseResult> {
  const jar = new CookieJar()
  let request: { url: string; method: 'GET' | 'POST'; body?: URLSearchParams } = { url: startUrl, method: 'GET' }
  let submittedLogin = false
  for (let step = 0; step < MAX_STEPS; step++) {
    const cookie = jar.header(request.url)
    const response = await fetch(request.url, {
      method: request.method,
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        ...(cookie ? { cookie } : {}),
        ...(request.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: request.body,
    })
    jar.store(response)
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel()
      const next = new URL(location, request.url).href
      if (stopAt(next)) return { redirect: next }
      request = { url: next, method: 'GET' }
      continue
    }
    const html = await response.text()
    const forms = parseForms(html).filter((form) => form.method === 'post')
    const form = forms.find((candidate) => candidate.fields.some((field) => field.type === 'password')) ?? forms[0]
    if (!form) return { page: { url: request.url, status: response.status, html } }
    const { values, isLogin } = submitValues(form, credentials)
    if (isLogin) {
      if (submittedLogin)
        throw new OAuthError(response.status, 'login_failed', 'the login form was shown again (wrong username or password?)')
      submittedLogin = true
    }
    request = { url: new URL(form.action ?? request.url, request.url).href, method: 'POST', body: values }
  }
  throw new OAuthError(0, 'too_many_steps', `no result after ${MAX_STEPS} requests`)
}

export interface AuthorizationCodeOptions extends RealmAddress, Credentials {
  clientId: string
  /** Default `http://127.0.0.1/callback` (a loopback redirect; nothing needs to listen there). */
  redirectUri?: string
  /** Default `openid profile email`. */
  scope?: string
  /** Default S256 with a fresh verifier; tests may send another method or omit PKCE. */
  pkce?: { challenge?: string; method?: string; verifier?: string } | false
}

export interface AuthorizationCodeResult {
  code: string
  state: string
  redirectUri: string
  /** The PKCE verifier to send with the code. */
  verifier: string | undefined
}

export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1/callback'

/** The browser half of the authorization-code flow: GET auth, sign in, and read the code off the redirect. */
export async function authorize(opts: AuthorizationCodeOptions): Promise<AuthorizationCodeResult> {
  const redirectUri = opts.redirectUri ?? DEFAULT_REDIRECT_URI
  const state = randomBytes(16).toString('base64url')
  let verifier: string | undefined
  const url = new URL(endpoint(opts, 'auth'))
  url.searchParams.set('client_id', opts.clientId)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('redirect_uri', redirectUri)
  url.searchParams.set('scope', opts.scope ?? 'openid profile email')
  url.searchParams.set('state', state)
  if (opts.pkce !== false) {
    const pair = pkcePair()
    verifier = opts.pkce?.verifier ?? pair.verifier
    url.searchParams.set('code_challenge', opts.pkce?.challenge ?? pair.challenge)
    url.searchParams.set('code_challenge_method', opts.pkce?.method ?? 'S256')
  }
  const result = await browse(url.href, opts, (to) => to.startsWith(redirectUri))
  if (!result.redirect) {
    throw new OAuthError(result.page?.status ?? 0, 'no_redirect', `sign-in ended on a page at ${result.page?.url ?? 'unknown'}`)
  }
  const back = new URL(result.redirect)
  const error = back.searchParams.get('error')
  if (error) throw new OAuthError(400, error, back.searchParams.get('error_description') ?? undefined)
  const code = back.searchParams.get('code')
  if (!code) throw new OAuthError(400, 'no_code', 'the redirect carried no code')
  if (back.searchParams.get('state') !== state) throw new OAuthError(400, 'state_mismatch', 'the redirect carried another state')
  return { code, state, redirectUri, verifier }
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

/** A user's tokens through the real authorization-code + PKCE (S256) flow. */
export async function getUserToken(opts: AuthorizationCodeOptions): Promise<TokenResponse> {
  const { code, redirectUri, verifier } = await authorize(opts)
  return exchangeCode(opts, { clientId: opts.clientId, code, redirectUri, verifier })
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

/** The person's half of the device flow: open the verification page, enter the code, sign in, confirm. */
export async function approveDevice(device: DeviceAuthorization, credentials: Credentials): Promise<BrowseResult> {
  const start = new URL(device.verification_uri)
  start.searchParams.set('user_code', device.user_code)
  return browse(start.href, credentials, () => false)
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
