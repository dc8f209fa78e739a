// Narrow windows and the review screenshots: the main screens at 1360, 800 and 420 px wide,
// without horizontal scrolling, each saved as a screenshot (.test-output/screenshots/layout-*).
import t from 'tap'
import type { Page } from 'playwright-core'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

const WIDTHS = [1360, 800, 420]

t.test('main screens at desktop, 800 and 420 px: no horizontal scroll; screenshots', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const headers = { ...ies.auth('dev'), 'content-type': 'application/json' }
  const post = async (path: string, body: unknown) =>
    (await (await fetch(`${ies.url}/api${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()).data
  await post('/cloud-credentials', {
    name: 'production-account-with-a-long-name',
    provider: 'aws',
    credentials: { accessKeyId: 'AKIAEXAMPLE000000001', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'eu-west-1' },
  })
  const env = await post('/environments', {
    name: 'layout-shop-with-a-rather-long-name',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-west-1',
    domain: 'shop.example.com',
    services: { rds: { enabled: true }, eks: { enabled: true } },
    gitRepository: { url: 'https://github.com/acme/layout-shop-infrastructure.git', branch: 'main', deployKey: 'token' },
  })
  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)

  const screens: [string, string, (p: Page) => Promise<unknown>][] = [
    ['environments', '#/environments', (p) => p.getByRole('link', { name: env.name }).waitFor()],
    ['environment', `#/environments/${env.id}`, (p) => p.getByRole('heading', { name: env.name, exact: true }).waitFor()],
    ['wizard-basics', '#/environments/new', (p) => p.getByLabel('Environment name').waitFor()],
    ['credentials', '#/credentials', (p) => p.locator('tr[data-credential]').waitFor()],
    ['preferences', '#/preferences', (p) => p.getByLabel('Theme').waitFor()],
  ]
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    for (const [name, hash, ready] of screens) {
      await page.goto(`${ies.url}/${hash}`)
      await ready(page)
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      t.ok(overflow <= 0, `${name} at ${width} px: no horizontal scroll (${overflow} px too wide)`)
      await screenshot(page, `layout-${name}-${width}`)
    }
    // the wizard's services step and review, the widest content
    await page.goto(`${ies.url}/#/environments/new`)
    await page.getByLabel('Environment name').fill('layout-check')
    await page.getByLabel('Global prefix').fill('acme')
    await page
      .getByRole('button', { name: /Services/ })
      .first()
      .click()
    await page.getByRole('switch', { name: 'Enable RDS PostgreSQL' }).click()
    for (const step of ['services', 'review']) {
      if (step === 'review')
        await page
          .getByRole('button', { name: /Review/ })
          .first()
          .click()
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      t.ok(overflow <= 0, `wizard ${step} at ${width} px: no horizontal scroll (${overflow} px too wide)`)
      await screenshot(page, `layout-wizard-${step}-${width}`)
    }
    await page.getByRole('button', { name: 'Discard the draft' }).click()
  }
  t.same(problems.errors, [])
})
