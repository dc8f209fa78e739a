// The API reference at /api/docs in Chromium: it loads without a token and without any request off
// the server (no CDN), lists every operation of the live OpenAPI document, and "Try it out" works
// with a bearer token pasted under "Authorize" (kept out of browser storage).
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, screenshot } from '../e2e/browser.ts'

t.test('/api/docs lists every route and tries one with a pasted token', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url

  const spec = await (await fetch(`${ies.url}/api/openapi.json`, { headers: ies.auth('dev') })).json()
  const operations = Object.entries(spec.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
    Object.keys(item)
      .filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m))
      .map((m) => `${m.toUpperCase()} ${p}`),
  )
  t.ok(operations.length >= 20, `the document has the API's operations (${operations.length})`)
  const noToken = await fetch(`${ies.url}/api/docs`, { redirect: 'manual' })
  t.ok(noToken.status < 400, 'the reference needs no token')
  t.ok(noToken.headers.get('x-ratelimit-limit'), 'but counts against the per-IP limit')
  const index = await fetch(`${ies.url}/api/docs/static/index.html`)
  const csp = index.headers.get('content-security-policy') ?? ''
  t.match(csp, /script-src 'self';/, 'scripts only from the server')
  t.notMatch(csp, /https:|validator/, 'no other origin allowed')
  const served = await (await fetch(`${ies.url}/api/docs/json`)).json()
  t.same(served.paths, spec.paths, 'it shows the same document as /api/openapi.json')

  const browser = await launchBrowser(t)
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } })
  const { page, problems } = await newPage(context)
  const elsewhere: string[] = []
  page.on('request', (r) => {
    if (!r.url().startsWith(ies.url) && !r.url().startsWith('data:')) elsewhere.push(r.url())
  })
  await page.goto(`${ies.url}/api/docs/`)
  await page.locator('.opblock').first().waitFor()
  const shown = await page.locator('.opblock').evaluateAll((blocks) =>
    blocks.map((b) => {
      const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? ''
      const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? ''
      return `${method} ${path}`
    }),
  )
  t.same([...shown].sort(), [...operations].sort(), 'every operation is listed')
  await screenshot(page, 'api-docs')

  // An operation opened: its request body with an example, and every answer it declares with the error envelope.
  const create = page.locator('.opblock-post').filter({ has: page.locator('.opblock-summary-path[data-path="/api/environments/"]') })
  await create.locator('.opblock-summary').first().click()
  await create.locator('.responses-table').first().waitFor()
  const codes = await create.locator('.responses-table .response-col_status').allTextContents()
  for (const code of ['201', '400', '401', '404', '409'])
    t.ok(
      codes.some((c) => c.trim().startsWith(code)),
      `POST /api/environments documents ${code}`,
    )
  t.match(await create.locator('.body-param__example, .example').first().textContent(), /"globalPrefix"/, 'with an example body')
  t.match(await create.locator('.responses-table').first().textContent(), /"code"/, 'errors in the envelope')
  await create.locator('.opblock-summary').first().click()

  // "Try it out" with a pasted token: GET /api/users/me answers the token's user.
  const token = ies.tokenFor('dev')
  await page
    .getByRole('button', { name: /Authorize/ })
    .first()
    .click()
  await page.locator('.modal-ux input').first().fill(token)
  await page.locator('.modal-ux button.modal-btn.authorize').click()
  await page.locator('.modal-ux button.btn-done').click()
  const me = page
    .locator('.opblock')
    .filter({ has: page.locator('.opblock-summary-path[data-path="/api/users/me"]') })
    .filter({ hasText: 'GET' })
  await me.locator('.opblock-summary').first().click()
  await me.getByRole('button', { name: 'Try it out' }).click()
  const answer = page.waitForResponse((r) => r.url() === `${ies.url}/api/users/me` && r.request().method() === 'GET')
  await me.getByRole('button', { name: 'Execute' }).click()
  const response = await answer
  t.equal(response.status(), 200, 'the request carried the pasted token')
  t.equal(response.request().headers().authorization, `Bearer ${token}`)
  await me.locator('.live-responses-table').waitFor()
  t.match(await me.locator('.live-responses-table').textContent(), /"username": "dev"/)

  const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))
  t.notOk(storage.includes(token), 'the token is not kept in browser storage')
  t.same(elsewhere, [], 'nothing is loaded from anywhere but the server')
  t.same(problems.errors, [], 'no page error, no CSP violation')
})
