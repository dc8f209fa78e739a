// The desktop login against the real embedded identity provider: loopback redirect with PKCE, a
// refresh before expiry, and logout at the provider (the refresh token stops working).
import t from 'tap'
import { browse } from '../../harness/scripted-login.ts'
import { startTestIdentityProvider, TEST_PASSWORDS, jwtClaims } from '../../harness/identity.ts'
import { loginWithLoopback } from '../../../desktop/src/main/loopback-login.ts'
import { refreshToken, TokenSession } from '@ies/api'

t.test('loopback PKCE login, refresh and logout against the embedded provider', async (t) => {
  const idp = await startTestIdentityProvider()
  t.teardown(() => idp.close())
  const cfg = { authUrl: idp.authUrl, realm: 'ies', clientId: 'ies-app' }
  let authorizeUrl = ''
  const tokens = await loginWithLoopback(cfg, {
    // The "system browser": signs in on the provider's form and follows the redirect to the loopback listener.
    openBrowser: async (url) => {
      authorizeUrl = url
      const redirectUri = new URL(url).searchParams.get('redirect_uri')!
      const result = await browse(url, { username: 'dev', password: TEST_PASSWORDS.dev }, (to) => to.startsWith(redirectUri))
      void fetch(result.redirect!).then((r) => r.text())
    },
  })
  t.match(new URL(authorizeUrl).searchParams.get('redirect_uri'), /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
  const claims = jwtClaims(tokens.accessToken)
  t.equal(claims.preferred_username, 'dev')
  t.equal(claims.azp, 'ies-app')
  t.ok(tokens.refreshToken)
  t.ok(Math.abs(tokens.expiresAt - Date.now() - 300_000) < 10_000, 'a 300 s access token')

  // the session refreshes a token that is about to expire
  let now = Date.now()
  const saved: unknown[] = []
  const session = new TokenSession({
    config: cfg,
    store: { load: () => null, save: (x) => void saved.push(x), clear: () => {} },
    now: () => now,
    setTimer: () => 0,
    clearTimer: () => {},
  })
  await session.start(tokens)
  now = tokens.expiresAt - 30_000
  const fresh = await session.accessToken()
  t.not(fresh, tokens.accessToken, 'a new access token')
  t.equal(jwtClaims(fresh!).preferred_username, 'dev')
  const current = session.current!

  // logout ends the provider's session: the refresh token no longer works
  await session.logout()
  t.equal(session.current, null)
  await t.rejects(refreshToken({ ...cfg, refreshToken: current.refreshToken! }), { name: 'OAuthError', error: 'invalid_grant' })
})
