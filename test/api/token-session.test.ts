// The token session: renewal before expiry (on demand and on a timer), one renewal for concurrent
// callers, logout at the provider, a refused renewal that ends the session, a provider that cannot be
// reached that does not, and tokens from client credentials.
import t from 'tap'
import { TokenSession, type TokenStore } from '@ies/api'
import { fakeTokenEndpoint } from '../harness/fake-token-endpoint.ts'

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

t.test('the session refreshes the access token before it expires, and logout calls the provider', async (t) => {
  const idp = await fakeTokenEndpoint(t)
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
  const idp = await fakeTokenEndpoint(t)
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

t.test('a provider that cannot be reached fails the call but keeps the session for the next attempt', async (t) => {
  const idp = await fakeTokenEndpoint(t)
  const store = memoryStore()
  let expired = 0
  let now = 299_000
  const session = new TokenSession({
    config: idp.cfg,
    store,
    now: () => now,
    setTimer: () => 0,
    clearTimer: () => {},
    onExpired: () => expired++,
  })
  await session.start({ accessToken: 'old', refreshToken: 'unreachable', idToken: null, expiresAt: 300_000, refreshExpiresAt: null })
  await t.rejects(session.accessToken(), { name: 'OAuthError', status: 503 })
  t.equal(expired, 0, 'not ended')
  t.equal(store.cleared, 0, 'the stored tokens are kept')
  t.equal(session.current?.refreshToken, 'unreachable')
  t.equal(session.refusal, null)
  now = 100_000
  t.equal(await session.accessToken(), 'old', 'a token still valid is still handed out')

  now = 299_000
  const restarted = new TokenSession({ config: idp.cfg, store, now: () => now, setTimer: () => 0, clearTimer: () => {} })
  t.equal(await restarted.restore(), true, 'a restart while the provider is down keeps the sign-in (an app start never fails on it)')
  t.equal(restarted.current?.refreshToken, 'unreachable')
})

t.test('a refused renewal says why; an answer without a refresh token keeps the current one', async (t) => {
  const idp = await fakeTokenEndpoint(t)
  const session = new TokenSession({ config: idp.cfg, store: memoryStore(), now: () => 0, setTimer: () => 0, clearTimer: () => {} })
  await session.start({ accessToken: 'a', refreshToken: 'revoked', idToken: null, expiresAt: 0, refreshExpiresAt: null })
  t.equal(await session.accessToken(), null)
  t.match(session.refusal, { status: 400, error: 'invalid_grant' })

  const cc = new TokenSession({
    config: { ...idp.cfg, clientSecret: 'secret' },
    grant: 'client_credentials',
    store: memoryStore(),
    now: () => 0,
    setTimer: () => 0,
    clearTimer: () => {},
  })
  t.equal(await cc.restore(), false, 'nothing stored')
  t.equal(await cc.accessToken(), 'at-1', 'client credentials need no stored session')
  t.match(idp.forms.at(-1), { grant_type: 'client_credentials', client_id: 'ies-app', client_secret: 'secret' })
  t.equal(await cc.accessToken(), 'at-1', 'reused until it is about to expire')
  t.equal((await cc.refresh())?.accessToken, 'at-2', 'renewed on demand (after the API refused it)')

  const wrong = new TokenSession({ config: { ...idp.cfg, clientSecret: 'wrong' }, grant: 'client_credentials', store: memoryStore() })
  t.equal(await wrong.accessToken(), null)
  t.match(wrong.refusal, { error: 'invalid_grant' })
})

t.test('a provider that does not rotate refresh tokens: the current one is kept', async (t) => {
  let form: Record<string, string> = {}
  const session = new TokenSession({
    config: { authUrl: 'http://idp.test', realm: 'ies', clientId: 'ies-app' },
    store: memoryStore(),
    now: () => 0,
    setTimer: () => 0,
    clearTimer: () => {},
    fetch: async (_url, init) => {
      form = Object.fromEntries(new URLSearchParams(String(init?.body)))
      return Response.json({ access_token: 'at-new', expires_in: 300, token_type: 'Bearer' })
    },
  })
  await session.start({ accessToken: 'a', refreshToken: 'rt-keep', idToken: null, expiresAt: 0, refreshExpiresAt: 5_000 })
  t.equal(await session.accessToken(), 'at-new')
  t.equal(form.refresh_token, 'rt-keep')
  t.match(session.current, { refreshToken: 'rt-keep', refreshExpiresAt: 5_000 })
})
