// The organisation's rules in the wizard, in Chromium: while the user edits, the draft is judged by
// the server's rules (POST /api/policies/evaluate; no rule in the browser) and a finding is shown at
// the field it names: a production cluster's public API endpoint is refused at its toggle (marked
// invalid, the step marked as one with errors), and goes as soon as the toggle is turned off, before
// the next evaluation answers (a finding is for the draft it was computed for). A warning (a missing
// tier; a staging cluster's endpoint open to every address) is said at its field without marking it
// invalid or its step as one with errors, and the draft saves. Saving a refused draft anyway is
// refused by the server: the denial stays at its field, and the refused save's notice goes with the fix.
import t from 'tap'
import type { Page } from 'playwright-core'
import { startTestApp } from '../harness/app.ts'
import { newEnvironmentWizard, screenshot } from './browser.ts'

/** The text of the elements a control's aria-describedby names. */
async function describedText(page: Page, control: ReturnType<Page['locator']>): Promise<string> {
  const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean)
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))
  return texts.join(' | ')
}

/** Evaluations held back until released: what the page shows while its draft has no answer yet. */
async function holdEvaluations(page: Page) {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/api/policies/evaluate', async (route) => {
    await released
    await route.continue()
  })
  return async () => {
    release()
    await page.unroute('**/api/policies/evaluate')
  }
}

t.test('a rule refuses a value at its field while the user edits', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const { page, problems } = await newEnvironmentWizard(t, ies.url, ies.tokenFor('dev'), 'shop-prod')
  const evaluations: string[] = []
  page.on('request', (r) => r.url().endsWith('/api/policies/evaluate') && evaluations.push(r.postData() ?? ''))

  // No tier: the rules warn at the Tier field, which stays valid; the step is not one with errors.
  const tierWarning = page.getByText(/Warning from the rule tier_label: no tier label/)
  await tierWarning.waitFor()
  const tier = page.getByLabel('Tier')
  t.equal(await tier.getAttribute('aria-invalid'), null, 'a warning does not mark the field invalid')
  t.match(await describedText(page, tier), /Warning from the rule tier_label/, 'the warning describes the field')
  t.equal(await page.locator('.field .error').count(), 0, 'no error shown')
  await page.locator('li.has-warning').filter({ hasText: 'Basics' }).waitFor()
  t.equal(await page.locator('li.has-error').count(), 0, 'no step with errors')
  await tier.selectOption('production')
  await tierWarning.waitFor({ state: 'detached' })

  await page.getByRole('button', { name: 'Next: Services' }).click()
  await page.getByRole('switch', { name: 'Enable EKS' }).click()
  const eks = page.locator('[data-service="eks"]')
  const endpoint = eks.getByRole('switch', { name: 'Public API endpoint' })
  t.equal(await endpoint.getAttribute('aria-checked'), 'false')
  const refusal = eks.getByText(/Refused by the rule eks_private_endpoint: a production cluster's API endpoint must not be public/)
  t.equal(await refusal.count(), 0, 'nothing refused before the change')
  await endpoint.click()
  await refusal.waitFor()
  t.equal(await endpoint.getAttribute('aria-invalid'), 'true', 'the toggle is marked')
  t.match(await describedText(page, endpoint), /Refused by the rule eks_private_endpoint/, 'the message describes the toggle')
  await page.locator('li.has-error').filter({ hasText: 'Services' }).waitFor()
  await screenshot(page, '40-wizard-rule-at-field')
  t.ok(
    evaluations.every((body) => !/deployKey/.test(body)),
    'the draft sent for evaluation carries no deploy key',
  )

  // Saving anyway: the server refuses; the wizard opens the Services step with the denial at its field.
  await page.getByRole('button', { name: 'Review', exact: true }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  const failed = page.getByText('Creating the environment failed')
  await failed.waitFor()
  await refusal.waitFor()
  t.equal(await endpoint.getAttribute('aria-invalid'), 'true', 'still marked after the refused save')
  const listed = await fetch(`${ies.url}/api/environments`, { headers: ies.auth('dev') })
  t.same((await listed.json()).data, [], 'nothing stored')

  // Turned off: the refusal goes at once, while the new draft's evaluation has not answered.
  const release = await holdEvaluations(page)
  await endpoint.click()
  await refusal.waitFor({ state: 'detached' })
  t.equal(await endpoint.getAttribute('aria-invalid'), null, 'no longer marked')
  await failed.waitFor({ state: 'detached' })
  t.equal(await page.locator('li.has-error').count(), 0, 'no step with errors')
  await release()

  // A staging cluster with its public endpoint open to every address: a warning at the CIDR blocks,
  // the field valid, the step not one with errors, and the environment saves.
  await page.getByRole('button', { name: /^Basics/ }).click()
  await tier.selectOption('staging')
  await page.getByRole('button', { name: /^Services/ }).click()
  await endpoint.click()
  const cidrWarning = eks.getByText(/Warning from the rule eks_private_endpoint: the public API endpoint is open to every address/)
  await cidrWarning.waitFor()
  const cidrs = eks.getByLabel('Public API allowed CIDR blocks')
  t.equal(await cidrs.getAttribute('aria-invalid'), null, 'the warned field is not marked invalid')
  t.match(await describedText(page, cidrs), /open to every address/, 'the warning describes the field')
  t.equal(await endpoint.getAttribute('aria-invalid'), null)
  await page.locator('li.has-warning').filter({ hasText: 'Services' }).waitFor()
  t.equal(await page.locator('li.has-error').count(), 0, 'a step with only warnings is not one with errors')
  await screenshot(page, '40-wizard-warning-at-field')
  await page.getByRole('button', { name: 'Review', exact: true }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.getByText('Created shop-prod').waitFor()
  const stored = await fetch(`${ies.url}/api/environments`, { headers: ies.auth('dev') })
  t.match((await stored.json()).data, [{ name: 'shop-prod', labels: { tier: 'staging' } }], 'saved with the warning')
  t.same(
    problems.errors.filter((e) => !/400/.test(e)),
    [],
  )
})

t.test("the list shows each environment's tier and filters on it", async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  for (const [name, tier] of [
    ['shop-live', 'production'],
    ['shop-test', 'staging'],
  ]) {
    const res = await fetch(`${ies.url}/api/environments`, {
      method: 'POST',
      headers: { ...ies.auth('dev'), 'content-type': 'application/json' },
      body: JSON.stringify({ name, globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', labels: { tier, owner: 'web' } }),
    })
    t.equal(res.status, 201)
  }
  const { page, problems } = await newEnvironmentWizard(t, ies.url, ies.tokenFor('dev'), 'unused')
  await page.goto(`${ies.url}/#/environments`)
  const row = (name: string) => page.getByRole('row').filter({ hasText: name })
  await row('shop-test').waitFor()
  t.equal(await row('shop-live').getByTestId('env-tier').textContent(), 'production')
  t.equal(await row('shop-live').getByTestId('env-tier').getAttribute('title'), 'tier=production, owner=web')
  await page.getByLabel('Tier').selectOption('production')
  await row('shop-test').waitFor({ state: 'detached' })
  t.equal(await row('shop-live').count(), 1, 'the production one stays')
  t.same(problems.errors, [])
})
