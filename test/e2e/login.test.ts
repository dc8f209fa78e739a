// The web UI's own login in Chromium: authorization code with PKCE by redirect to the identity
// provider (the embedded provider, as the external one at AUTH_URL), the provider's sign-in form,
// back to the app, and logout at the provider.
import t from 'tap'
import net from 'node:net'
import { buildApp } from '@ies/server'
import { loadConfig } from '@ies/server/config'
import { startTestDatabase } from '../harness/database.ts'
import { startTestIdentityProvider, TEST_PASSWORDS } from '../harness/identity.ts'
import { launchBrowser, newPage, screenshot } from './browser.ts'

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/**
 * The server at a known address, so that the provider can list the web UI's redirect URI (its
 * token endpoint allows CORS from the origins of the app client's registered redirect URIs).
 */
async function startServer(t: { teardown(fn: () => unknown): void }, authUrl: string, port: number) {
  const db = await startTestDatabase(t)
  const config = loadConfig({
    NODE_ENV: 'test',
    MONGODB_URI: db.uri,
    AUTH_URL: authUrl,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_IP_MAX: '1000000',
    RATE_LIMIT_USER_MAX: '1000000',
  })
  const app = await buildApp({ config, logger: false })
  await app.listen({ host: '127.0.0.1', port })
  t.teardown(() => app.close())
  return { url: config.publicUrl }
}

t.test('PKCE login by redirect, then logout', async (t) => {
  const port = await freePort()
  const idp = await startTestIdentityProvider({ appRedirectUris: [`http://127.0.0.1:${port}/`] })
  t.teardown(() => idp.close())
  const ies = await startServer(t, idp.authUrl, port)
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
  await page.locator('input[name="username"]').fill('dev')
  await page.locator('input[name="password"]').fill(TEST_PASSWORDS.dev)
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(ies.url)),
    page
      .locator('form')
      .first()
      .evaluate((f) => (f as HTMLFormElement).requestSubmit()),
  ])
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
