// The web UI's own login in Chromium: authorization code with PKCE by redirect to the identity
// provider (the embedded provider, as the external one at AUTH_URL), the provider's sign-in form,
// back to the app, and logout at the provider.
import t from 'tap'
import { launchBrowser, newPage, screenshot } from './browser.ts'
import { signInAtProvider, startServerWithProvider } from './signed-in-server.ts'

t.test('PKCE login by redirect, then logout', async (t) => {
  const { idp, ...ies } = await startServerWithProvider(t)
  const browser = await launchBrowser(t)
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } })
  const { page, problems } = await newPage(context)
  const tokenRequests: string[] = []
  const authorizeRequests: URL[] = []
  page.on('request', (r) => {
    if (r.url().endsWith('/protocol/openid-connect/token')) tokenRequests.push(r.postData() ?? '')
    if (r.url().includes('/protocol/openid-connect/auth?')) authorizeRequests.push(new URL(r.url()))
  })

  await page.goto(`${ies.url}/#/credentials`)
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  await screenshot(page, '00-login')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((u) => u.href.startsWith(idp.authUrl))
  const authorize = authorizeRequests[0]
  await signInAtProvider(page, ies.url)
  await page.getByRole('heading', { name: 'Cloud credentials', exact: true }).waitFor()
  t.equal(await page.getByTestId('username').textContent(), 'dev')
  t.equal(new URL(page.url()).search, '', 'the code and state are removed from the address')
  t.equal(new URL(page.url()).hash, '#/credentials', 'back where the login started')

  const form = new URLSearchParams(tokenRequests[0])
  t.equal(form.get('grant_type'), 'authorization_code')
  t.equal(form.get('client_id'), 'ies-app')
  t.ok(form.get('code_verifier'), 'the verifier is sent')
  t.equal(authorize.searchParams.get('code_challenge_method'), 'S256')
  t.equal(authorize.searchParams.get('client_id'), 'ies-app')
  t.equal(authorize.searchParams.get('redirect_uri'), `${ies.url}/`)
  t.ok(authorize.searchParams.get('state'))
  t.ok(authorize.searchParams.get('code_challenge'))

  // an authenticated API call works with the provider's token
  await page.getByText('No cloud credentials yet').waitFor()

  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('alertdialog', { name: 'Sign out?' }).getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  t.equal(await page.evaluate(() => sessionStorage.getItem('ies.tokens')), null, 'tokens are forgotten')
  t.same(problems.errors, [])
})
