// The readable wizard in Chromium: a duplicate name is reported at the name field; the
// generation result names its files, size and templates commit, its download button belongs to it
// (another format in the form does not make it look current); options a format decides are shown so.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

t.test('duplicate name at the field; generation result and its download; format-bound options', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const created = await fetch(`${ies.url}/api/environments`, {
    method: 'POST',
    headers: { ...ies.auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'taken-name', globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', services: {} }),
  })
  t.equal(created.status, 201)
  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)

  // --- an Azure environment is offered no AWS services, and told why
  await page.goto(`${ies.url}/#/environments/new`)
  await page.getByLabel('Provider').selectOption({ label: 'Azure' })
  await page.getByRole('button', { name: 'Next: Services' }).click()
  t.match(await page.getByTestId('provider-not-generated').textContent(), /AWS only today/)
  t.equal(await page.locator('[data-service]').count(), 0, 'no AWS service is shown')
  await page.getByRole('button', { name: 'Basics' }).click()
  await page.getByLabel('Provider').selectOption({ label: 'AWS' })

  // --- the duplicate name comes back at the name field, and goes as the name changes
  const name = page.getByLabel('Environment name')
  await name.fill('taken-name')
  await page.getByLabel('Global prefix').fill('acme')
  await page.getByRole('button', { name: 'Review' }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  const duplicate = page.getByText('You already have an environment named "taken-name". Choose another name.')
  await duplicate.waitFor()
  t.equal(await name.getAttribute('aria-invalid'), 'true', 'the name field is marked')
  await screenshot(page, '22-duplicate-name')
  await name.fill('fresh-name')
  t.equal(await duplicate.count(), 0, 'the message goes with the change')
  await page.getByRole('button', { name: 'Review' }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.getByRole('heading', { name: 'fresh-name', exact: true }).waitFor()

  // --- options a format decides itself
  const panel = page.locator('section[aria-labelledby="generate-title"]')
  await panel.getByLabel('Format').selectOption({ label: 'Argo CD' })
  const gitops = panel.getByRole('switch', { name: 'Include GitOps application definitions' })
  t.equal(await gitops.getAttribute('aria-checked'), 'true', 'Argo CD always has its definitions')
  t.ok(await gitops.isDisabled(), 'and the toggle cannot say otherwise')
  await panel.getByText('Always part of Argo CD.').first().waitFor()
  await panel.getByLabel('Format').selectOption({ label: 'Terraform' })

  // --- the result of a generation, and its own download button
  await panel.getByRole('button', { name: 'Generate' }).click()
  const result = panel.getByTestId('generation-result')
  const failed = page.getByTestId('job-failed')
  await Promise.race([result.waitFor({ timeout: 120_000 }), failed.waitFor({ timeout: 120_000 })])
  if (await failed.isVisible()) t.fail(`generation failed: ${await failed.textContent()}`)
  t.match(await result.textContent(), /^Terraform · \d+ files · [\d.]+ (KB|MB) · templates \S+/)
  const button = result.getByRole('button', { name: /^Download fresh-name-terraform-[0-9a-f]{7}\.zip$/ })
  await button.waitFor()
  t.equal(await panel.getByTestId('archive-differs').count(), 0)
  await panel.getByLabel('Format').selectOption({ label: 'Helm values' })
  await panel.getByTestId('archive-differs').waitFor()
  t.match(await panel.getByTestId('archive-differs').textContent(), /This archive is the Terraform generation/)
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
  t.match(download.suggestedFilename(), /^fresh-name-terraform-/, 'the button downloads the archive it belongs to')
  await screenshot(page, '23-generation-result')
  t.same(problems.errors, [])
})
