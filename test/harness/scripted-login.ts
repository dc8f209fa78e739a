// A scripted browser for the identity provider's pages, for tests and `npm run token`: follows
// redirects with a cookie jar, signs in on the login form, submits the device and consent forms,
// and so drives the authorization-code + PKCE and device flows end to end against the embedded
// provider or Keycloak. The protocol calls themselves are the API contract's (api/src/oauth.ts).
import { randomBytes } from 'node:crypto'
import {
  endpoint,
  exchangeCode,
  OAuthError,
  pkcePair,
  type DeviceAuthorization,
  type RealmAddress,
  type TokenResponse,
} from '@ies/api/oauth'
import { parseForms, type HtmlForm } from './html-forms.ts'

// The protocol calls too, so a test imports its flows from one place.
export * from '@ies/api/oauth'

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
    const pair = await pkcePair()
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
/** A user's tokens through the real authorization-code + PKCE (S256) flow. */
export async function getUserToken(opts: AuthorizationCodeOptions): Promise<TokenResponse> {
  const { code, redirectUri, verifier } = await authorize(opts)
  return exchangeCode({ authUrl: opts.authUrl, realm: opts.realm, clientId: opts.clientId, code, redirectUri, verifier })
}
/** The person's half of the device flow: open the verification page, enter the code, sign in, confirm. */
export async function approveDevice(device: DeviceAuthorization, credentials: Credentials): Promise<BrowseResult> {
  const start = new URL(device.verification_uri)
  start.searchParams.set('user_code', device.user_code)
  return browse(start.href, credentials, () => false)
}
