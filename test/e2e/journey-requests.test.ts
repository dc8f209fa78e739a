// The UI is frugal with the API. A full journey as a new platform engineer makes
// it (sign in at the real identity provider, add an AWS credential, create an environment with four
// services through the wizard, generate, wait, download) costs at most 40 API requests: counted
// from Chromium's own request events, printed by route, and asserted.
import t from 'tap'
import { launchBrowser, newPage } from './browser.ts'
import { signInAtProvider, startServerWithProvider } from './signed-in-server.ts'

export const JOURNEY_BUDGET = 40

t.test('the full journey costs at most 40 API requests', async (t) => {
  const ies = await startServerWithProvider(t)
  const browser = await launchBrowser(t)
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true })
  const { page, problems } = await newPage(context)
  const api: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.origin === ies.url && url.pathname.startsWith('/api/')) {
      api.push(`${r.method()} ${url.pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')}${url.search}`)
    }
  })

  // --- sign in
  await page.goto(ies.url)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await signInAtProvider(page, ies.url)
  await page.getByText('No environments yet').waitFor()

  // --- add an AWS credential
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Cloud credentials' }).click()
  await page.getByRole('button', { name: 'Add credential' }).click()
  await page.getByLabel('Name').fill('sandbox')
  await page.getByLabel('Access key ID').fill('AKIAEXAMPLE000000001')
  await page.getByLabel('Secret access key').fill('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY')
  await page.getByLabel('Default region').fill('eu-west-1')
  await page.getByRole('button', { name: 'Save credential' }).click()
  await page.locator('tr[data-credential="sandbox"]').waitFor()

  // --- an environment with four services, through every step of the wizard
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Environments' }).click()
  await page.getByRole('link', { name: 'New environment' }).click()
  await page.getByLabel('Environment name').fill('journey-shop')
  await page.getByLabel('Global prefix').fill('acme')
  await page.getByRole('button', { name: 'Next: Services' }).click()
  for (const [key, label] of [
    ['vpc', 'VPC'],
    ['eks', 'EKS'],
    ['rds', 'RDS PostgreSQL'],
    ['s3', 'S3'],
  ]) {
    await page
      .locator(`[data-service="${key}"]`)
      .getByRole('switch', { name: `Enable ${label}` })
      .click()
  }
  await page.getByRole('button', { name: 'Next: State backend' }).click()
  await page.getByRole('button', { name: 'Next: Git repository' }).click()
  await page.getByRole('button', { name: 'Next: Cloud credential' }).click()
  await page.getByLabel(/sandbox/).check()
  await page.getByRole('button', { name: 'Next: Review' }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.getByRole('heading', { name: 'journey-shop', exact: true }).waitFor()

  // --- generate, wait, download
  const panel = page.locator('section[aria-labelledby="generate-title"]')
  await panel.getByRole('button', { name: 'Generate' }).click()
  const done = panel.getByRole('button', { name: /^Download/ })
  const failed = page.getByTestId('job-failed')
  await Promise.race([done.waitFor({ timeout: 120_000 }), failed.waitFor({ timeout: 120_000 })])
  if (await failed.isVisible()) t.fail(`generation failed: ${await failed.textContent()}`)
  const [download] = await Promise.all([page.waitForEvent('download'), done.click()])
  t.match(download.suggestedFilename(), /^journey-shop-terraform-[0-9a-f]{7}\.zip$/)

  const byRoute = new Map<string, number>()
  for (const r of api) byRoute.set(r, (byRoute.get(r) ?? 0) + 1)
  console.log(`journey: ${api.length} API requests (budget ${JOURNEY_BUDGET})`)
  for (const [route, n] of byRoute) console.log(`  ${String(n).padStart(3)}  ${route}`)
  t.ok(api.length <= JOURNEY_BUDGET, `the journey costs ${api.length} API requests (at most ${JOURNEY_BUDGET})`)
  t.same(problems.errors, [])
})
