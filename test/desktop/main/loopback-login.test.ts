// The desktop's native-app login (RFC 8252) against a fake token endpoint: a 127.0.0.1 listener,
// the state checked, the code exchanged.
import t from 'tap'
import { loginWithLoopback } from '../../../desktop/src/main/loopback-login.ts'
import { fakeTokenEndpoint } from '../../harness/fake-token-endpoint.ts'

t.test('loopback login (RFC 8252): 127.0.0.1 listener, state checked, code exchanged', async (t) => {
  const idp = await fakeTokenEndpoint(t)
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
    { name: 'OAuthError', error: 'invalid_state' },
  )
})
