// Generation from the environment screen (format, options, progress, download and unzip of the
// archive), and the wizard with the catalog unreachable: the fallback notice, and it still works.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { unzipToFiles } from '@ies/processor-lib'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

t.test('catalog unreachable: fallback notice, the wizard still creates; then generate and download', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  // The catalog cannot be reached at all (not even an error answer).
  await page.route('**/api/catalog', (route) => route.abort('connectionrefused'))
  const warnings: string[] = []
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()))

  await page.goto(`${ies.url}/#/environments/new`)
  const notice = page.getByTestId('catalog-fallback')
  await notice.waitFor()
  t.match(await notice.textContent(), /built-in catalog/)
  t.match(warnings.join('\n'), /falling back to the static configuration/, 'the failure is logged')
  await page.getByLabel('Environment name').fill('fallback-env')
  await page.getByLabel('Global prefix').fill('acme')

  // a draft survives a reload
  await page.reload()
  await page.getByTestId('draft-notice').waitFor()
  t.equal(await page.getByLabel('Environment name').inputValue(), 'fallback-env')
  await screenshot(page, '12-wizard-catalog-fallback')

  await page.getByRole('button', { name: 'Next: Services' }).click()
  await page.locator('[data-service="vpc"]').getByRole('switch').click()
  await page.getByRole('button', { name: 'Review' }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.getByRole('heading', { name: 'fallback-env', exact: true }).waitFor()

  // --- generate, watch, download, unzip
  const panel = page.locator('section[aria-labelledby="generate-title"]')
  await panel.getByLabel('Format').selectOption({ label: 'Terraform' })
  await panel.getByRole('button', { name: 'Generate' }).click()
  const done = panel.getByRole('button', { name: /^Download / })
  const failed = page.getByTestId('job-failed')
  await Promise.race([done.waitFor({ timeout: 120_000 }), failed.waitFor({ timeout: 120_000 })])
  await screenshot(page, '13-generate')
  if (await failed.isVisible()) t.fail(`generation failed: ${await failed.textContent()}`)
  t.match(await panel.getByRole('list', { name: 'Generation log' }).textContent(), /Job succeeded/)
  const [download] = await Promise.all([page.waitForEvent('download'), done.click()])
  t.match(
    download.suggestedFilename(),
    /^fallback-env-terraform-[0-9a-f]{7}\.zip$/,
    'named as the server names it (with the templates commit)',
  )
  const files = await unzipToFiles(await readFile((await download.path())!), { maxFiles: 10_000, maxBytes: 100 * 1024 * 1024 })
  const names = files.map((f) => f.path)
  const main = files.find((f) => /(^|\/)terraform\.tfvars$/.test(f.path))
  t.ok(main, 'the parameter-values file is in the archive')
  t.match(main?.content.toString(), /fallback-env/, 'with the environment filled in')
  t.ok(
    names.some((n) => n.endsWith('.tf')),
    `the archive holds Terraform files (${names.length} files)`,
  )
  t.same(problems.errors, [])
})
