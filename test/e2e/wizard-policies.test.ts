// The organisation's rules in the wizard, in Chromium: while the user edits, the draft is judged by
// the server's rules (POST /api/policies/evaluate; no rule in the browser) and a finding is shown at
// the field it names: a production cluster's public API endpoint is refused at its toggle (the step is
// marked), and goes when the toggle is turned off; a missing tier is a warning at the Tier field.
// Saving a refused draft anyway brings the server's POLICY_DENIED back at the same field.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { newEnvironmentWizard, screenshot } from './browser.ts'

t.test('a rule refuses a value at its field while the user edits', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const { page, problems } = await newEnvironmentWizard(t, ies.url, ies.tokenFor('dev'), 'shop-prod')
  const evaluations: string[] = []
  page.on('request', (r) => r.url().endsWith('/api/policies/evaluate') && evaluations.push(r.postData() ?? ''))

  // No tier: the rules warn at the Tier field.
  const tierWarning = page.getByText(/Warning from the rule tier_label: no tier label/)
  await tierWarning.waitFor()
  await page.getByLabel('Tier').selectOption('production')
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
  const describedBy = (await endpoint.getAttribute('aria-describedby')) ?? ''
  t.match(
    await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent(),
    /eks_private_endpoint/,
    'the message describes the toggle',
  )
  await page.locator('li.has-error').filter({ hasText: 'Services' }).waitFor()
  await screenshot(page, '40-wizard-rule-at-field')
  t.ok(
    evaluations.every((body) => !/deployKey/.test(body)),
    'the draft sent for evaluation carries no deploy key',
  )

  // Saving anyway: the server refuses, at the same field.
  await page.getByRole('button', { name: 'Review', exact: true }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await eks
    .getByText(/a production cluster's API endpoint must not be public/)
    .first()
    .waitFor()
  const listed = await fetch(`${ies.url}/api/environments`, { headers: ies.auth('dev') })
  t.same((await listed.json()).data, [], 'nothing stored')

  // Turned off: the refusal goes.
  await endpoint.click()
  await refusal.waitFor({ state: 'detached' })
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
