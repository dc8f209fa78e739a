// The PKCE flow's pieces (RFC 7636 S256, state) and the token session's refresh-before-expiry.
import t from 'tap'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { beginLogin, codeChallenge, codeFromCallback, endpoints, exchangeCode, OidcError } from '../../desktop/src/lib/oidc.ts'
import { TokenSession, type TokenStore } from '../../desktop/src/lib/token-session.ts'
import { loginWithLoopback } from '../../desktop/src/lib/loopback-login.ts'

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
  t.throws(() => codeFromCallback('http://h/cb?code=abc&state=other', { state: 's1' }), { code: 'invalid_state' })
  t.throws(
    () => codeFromCallback('http://h/cb?error=access_denied&error_description=no&state=s1', { state: 's1' }),
    new OidcError('access_denied', 'no'),
  )
  t.throws(() => codeFromCallback('http://h/cb?state=s1', { state: 's1' }), { code: 'invalid_request' })
})

function memoryStore(): TokenStore & { saved: unknown[]; cleared: number } {
  let value: any = null
  const s = {
    saved: [] as unknown[],
    cleared: 0,
    load: () => value,
    save: (v: any) => {
      value = v
      s.saved.push(v)
    },
    clear: () => {
      value = null
      s.cleared++
    },
  }
  return s
}

/** A fake token endpoint that records the forms it receives. */
async function fakeProvider(t: { teardown(fn: () => unknown): void }) {
  const forms: Record<string, string>[] = []
  let n = 0
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body))
      forms.push({ path: req.url!, ...form })
      if (req.url!.endsWith('/logout')) return res.writeHead(204).end()
      if (form.refresh_token === 'revoked') {
        res.writeHead(400, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'Token is not active' }))
      }
      n++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          access_token: `at-${n}`,
          refresh_token: `rt-${n}`,
          expires_in: 300,
          refresh_expires_in: 1800,
          token_type: 'Bearer',
        }),
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { forms, cfg: { authUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, realm: 'ies', clientId: 'ies-app' } }
}

t.test('the code exchange sends the verifier and redirect URI', async (t) => {
  const idp = await fakeProvider(t)
  const { pending } = await beginLogin(idp.cfg, 'http://127.0.0.1:1/cb')
  const tokens = await exchangeCode(idp.cfg, 'the-code', pending, { now: () => 1000 })
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

t.test('the session refreshes the access token before it expires, and logout calls the provider', async (t) => {
  const idp = await fakeProvider(t)
  let now = 0
  const timers: { fn: () => void; ms: number }[] = []
  const store = memoryStore()
  let expired = 0
  const session = new TokenSession({
    config: idp.cfg,
    store,
    now: () => now,
    setTimer: (fn, ms) => timers.push({ fn, ms }),
    clearTimer: () => {},
    onExpired: () => expired++,
  })
  await session.start({ accessToken: 'at-0', refreshToken: 'rt-0', idToken: null, expiresAt: 300_000, refreshExpiresAt: 1_800_000 })
  t.equal(timers.at(-1)!.ms, 240_000, 'a refresh is scheduled 60 s before expiry')
  now = 100_000
  t.equal(await session.accessToken(), 'at-0', 'a fresh token is used as is')
  t.equal(idp.forms.length, 0)
  now = 250_000
  t.equal(await session.accessToken(), 'at-1', 'within the margin the token is refreshed first')
  t.same(idp.forms[0], {
    path: '/realms/ies/protocol/openid-connect/token',
    client_id: 'ies-app',
    grant_type: 'refresh_token',
    refresh_token: 'rt-0',
  })
  t.equal((store.saved.at(-1) as any).refreshToken, 'rt-1', 'the new refresh token is stored')
  now = 1_000_000
  const both = await Promise.all([session.accessToken(), session.accessToken()])
  t.same(both, ['at-2', 'at-2'], 'concurrent callers share one refresh')
  await session.logout()
  t.same(idp.forms.at(-1), { path: '/realms/ies/protocol/openid-connect/logout', client_id: 'ies-app', refresh_token: 'rt-2' })
  t.equal(await session.accessToken(), null)
  t.equal(expired, 1)
  t.equal(store.cleared, 1)
})

t.test('a refused refresh ends the session', async (t) => {
  const idp = await fakeProvider(t)
  const store = memoryStore()
  let expired = false
  const session = new TokenSession({
    config: idp.cfg,
    store,
    now: () => 299_000,
    setTimer: () => 0,
    clearTimer: () => {},
    onExpired: () => (expired = true),
  })
  store.save({ accessToken: 'old', refreshToken: 'revoked', idToken: null, expiresAt: 300_000, refreshExpiresAt: null })
  t.equal(await session.restore(), false)
  t.ok(expired)
})

t.test('loopback login (RFC 8252): 127.0.0.1 listener, state checked, code exchanged', async (t) => {
  const idp = await fakeProvider(t)
  const tokens = await loginWithLoopback(idp.cfg, {
    // The "system browser": follows the authorization request as a provider would, straight to the redirect.
    openBrowser: async (url) => {
      const p = new URL(url).searchParams
      const redirect = new URL(p.get('redirect_uri')!)
      t.equal(redirect.hostname, '127.0.0.1')
      t.not(redirect.port, '')
      setTimeout(async () => {
        const res = await fetch(`${redirect}?code=c-1&state=${p.get('state')}`)
        t.equal(res.status, 200)
        t.match(await res.text(), /Signed in/)
      }, 10)
    },
  })
  t.equal(tokens.accessToken, 'at-1')
  t.equal(idp.forms[0].code, 'c-1')

  await t.rejects(
    loginWithLoopback(idp.cfg, {
      openBrowser: (url) => {
        const redirect = new URL(new URL(url).searchParams.get('redirect_uri')!)
        setTimeout(() => fetch(`${redirect}?code=c-2&state=forged`).catch(() => {}), 10)
      },
    }),
    { code: 'invalid_state' },
  )
})

t.test('endpoints follow Keycloak paths', async (t) => {
  t.same(endpoints(cfg).logout, 'http://idp.test/realms/ies/protocol/openid-connect/logout')
})
