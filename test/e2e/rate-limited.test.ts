// When the server's real per-IP limit answers 429, the UI says when the user can
// try again, holds its requests until then (each would only be refused), and stays usable: the
// wizard opens from the catalog copy kept in the browser instead of the built-in catalog.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

t.test('rate limited: the time to try again is shown, requests are held, the wizard still works', async (t) => {
  const ies = await startTestApp(t, { RATE_LIMIT_IP_MAX: '30', RATE_LIMIT_IP_WINDOW_MS: String(10 * 60 * 1000) })
  ies.config.publicUrl = ies.url
  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  const sent: string[] = []
  page.on('request', (r) => new URL(r.url()).pathname.startsWith('/api/') && sent.push(new URL(r.url()).pathname))

  // the live catalog is fetched once and kept in the browser
  await page.goto(`${ies.url}/#/environments/new`)
  await page.getByTestId('catalog-source').waitFor()
  t.match(await page.getByTestId('catalog-source').textContent(), /^Live service catalog/)

  // other traffic from the same address uses up the window (the limit counts per IP)
  let status = 0
  for (let i = 0; i < 40 && status !== 429; i++) {
    status = (await fetch(`${ies.url}/api/users/me/preferences`, { headers: ies.auth('dev') })).status
  }
  t.equal(status, 429, 'the server is limiting this address')

  // the next screen's request is refused: the banner and the notice say when to try again
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Environments' }).click()
  const banner = page.getByTestId('rate-limited')
  await banner.waitFor()
  t.match(await banner.textContent(), /Too many requests\. .*You can try again at \d{1,2}:\d{2}:\d{2}.* \(in (\d+ seconds|\d+ minutes)\)/)
  t.match(await page.getByRole('alert').filter({ hasText: 'Loading environments has to wait' }).textContent(), /try again at/)
  await screenshot(page, '21-rate-limited')
  const sentWhenLimited = sent.length

  // the wizard opens from the kept copy (not the built-in catalog) and can be filled in
  await page.getByRole('link', { name: 'New environment' }).click()
  await page.getByTestId('catalog-unchecked').waitFor()
  t.match(await page.getByTestId('catalog-source').textContent(), /^Live service catalog.*\(may be out of date\)/)
  t.equal(await page.getByTestId('catalog-fallback').count(), 0, 'no fall back to the built-in catalog')
  await page.getByLabel('Environment name').fill('while-limited')
  await page.getByRole('button', { name: 'Next: Services' }).click()
  const vpc = page.getByRole('switch', { name: 'Enable VPC' })
  await vpc.click()
  t.equal(await vpc.getAttribute('aria-checked'), 'true')
  await page.getByRole('button', { name: 'Cloud credential' }).click()
  await page.getByText('has to wait').first().waitFor()
  t.equal(sent.length, sentWhenLimited, 'no request is sent while the server said to wait')
  t.same(problems.errors, [])
})
