// The built-in assistant (no model configured) beside the wizard, by keyboard: open it, ask
// "enable eks", apply the suggestion, and the wizard's EKS toggle is on; the deploy key typed in
// the wizard never goes to the assistant; Escape closes the panel and gives focus back.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { newEnvironmentWizard, screenshot } from './browser.ts'

const DEPLOY_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nYXNzaXN0YW50LW5ldmVyLXNlZXMtdGhpcw==\n-----END OPENSSH PRIVATE KEY-----'

t.test('wizard assistant: ask, apply, see the toggle on', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const { page, problems } = await newEnvironmentWizard(t, ies.url, ies.tokenFor('dev'), 'assisted')
  const chats: string[] = []
  page.on('request', (r) => r.url().endsWith('/api/ai/chat') && chats.push(r.postData() ?? ''))
  await page.getByRole('button', { name: 'Git repository' }).click()
  await page.getByLabel('Deploy key or access token (write-only)').fill(DEPLOY_KEY)
  await page.getByRole('button', { name: 'Services' }).click()
  const eksSwitch = page.locator('[data-service="eks"]').getByRole('switch', { name: 'Enable EKS' })
  t.equal(await eksSwitch.getAttribute('aria-checked'), 'false', 'EKS starts off')

  // open the assistant by keyboard: focus lands in the question box
  const toggle = page.getByRole('button', { name: 'Assistant', exact: true })
  await toggle.focus()
  await page.keyboard.press('Enter')
  const panel = page.getByRole('region', { name: 'Assistant' })
  await panel.waitFor()
  t.equal(await toggle.getAttribute('aria-expanded'), 'true')
  const question = panel.getByLabel('Ask the assistant')
  t.ok(await question.evaluate((el) => el === document.activeElement), 'focus moves into the question box')
  await page.keyboard.type('enable eks')
  await page.keyboard.press('Enter')

  const apply = panel.getByRole('button', { name: 'Apply services.eks.enabled = true' })
  await apply.waitFor({ timeout: 60_000 })
  t.match(await panel.getByRole('log').textContent(), /EKS/)
  await apply.focus()
  await page.keyboard.press('Enter')
  await panel.getByRole('button', { name: 'Apply services.eks.enabled = true' }).getByText('Applied').waitFor()
  await page.waitForFunction(() => document.querySelector('[data-service="eks"] [role="switch"]')?.getAttribute('aria-checked') === 'true')
  t.equal(await eksSwitch.getAttribute('aria-checked'), 'true', "the wizard's EKS toggle is on")
  await page.locator('[data-service="eks"]').getByLabel('Kubernetes version').waitFor()
  await screenshot(page, '17-wizard-assistant')

  // Escape closes the panel and returns focus to its button
  await question.focus()
  await page.keyboard.press('Escape')
  await panel.waitFor({ state: 'detached' })
  t.ok(await toggle.evaluate((el) => el === document.activeElement), 'focus returns to the assistant button')

  // the applied value is in the draft the wizard creates
  await page.getByRole('button', { name: 'Review' }).click()
  t.equal(await page.getByTestId('review-summary').locator('[data-summary-service="eks"]').count(), 1, 'EKS is among the enabled services')
  await page.getByRole('button', { name: 'Show as YAML' }).click()
  t.match(await page.getByTestId('review').textContent(), /eks:\n\s+enabled: true/)

  t.equal(chats.length, 1)
  t.notMatch(chats[0], /PRIVATE KEY|YXNzaXN0YW50/, 'the deploy key is not sent to the assistant')
  t.match(JSON.parse(chats[0]).draft, { name: 'assisted', services: { eks: { enabled: false } } })
  t.same(problems.errors, [])
})

// The compound request: "I need a private EKS cluster with Postgres" gives EKS, RDS, the VPC
// they need and the public endpoint off, each with its reason; "Apply all" applies each of them to
// the wizard in one click, and the suggestions read as the catalog's labels (the path beside them).
t.test('wizard assistant: a compound request, applied in one click, with catalog labels', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const { page, problems } = await newEnvironmentWizard(t, ies.url, ies.tokenFor('dev'), 'assisted-all')
  await page.getByRole('button', { name: 'Services', exact: true }).click()
  const switchOf = (service: string) => page.locator(`[data-service="${service}"] [role="switch"]`).first()
  t.equal(await switchOf('eks').getAttribute('aria-checked'), 'false', 'EKS starts off')
  t.equal(await switchOf('rds').getAttribute('aria-checked'), 'false', 'RDS starts off')

  await page.getByRole('button', { name: 'Assistant', exact: true }).click()
  const panel = page.getByRole('region', { name: 'Assistant' })
  await panel.getByLabel('Ask the assistant').fill('I need a private EKS cluster with Postgres')
  await panel.getByRole('button', { name: 'Send' }).click()

  const eks = panel.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Apply services.eks.enabled = true' }) })
  const rds = panel.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Apply services.rds.enabled = true' }) })
  await eks.waitFor({ timeout: 60_000 })
  t.equal(await eks.locator('.assistant-label').textContent(), 'EKS · Enabled', "the catalog's label")
  t.equal(await eks.locator('code.assistant-path').textContent(), 'services.eks.enabled', 'the path beside it')
  t.match(await eks.textContent(), /= on/, 'a toggle reads on')
  t.match(await rds.locator('.assistant-label').textContent(), /^RDS.* · Enabled$/)

  const suggestions = panel.getByRole('list', { name: 'Suggestions' }).getByRole('listitem')
  // The wizard's draft already holds the endpoint's default (private): said, not suggested again.
  t.equal(await suggestions.count(), 3, 'EKS, RDS and the VPC they need')
  await panel.getByRole('button', { name: 'Apply services.vpc.enabled = true' }).waitFor()
  const log = await panel.getByRole('log').textContent()
  t.match(log, /Public API endpoint is already false/, 'the private endpoint is confirmed')
  t.match(log, /Aurora PostgreSQL.*alternative/, 'the alternative is named')
  for (let i = 0; i < 3; i++) t.ok(((await suggestions.nth(i).locator('.help').textContent()) ?? '').length > 10, 'each says why')
  await panel.getByRole('button', { name: 'Apply all 3 suggestions', exact: true }).click()
  await panel.getByRole('button', { name: 'All applied' }).waitFor()
  t.ok(await panel.getByRole('button', { name: 'All applied' }).isDisabled())
  for (const service of ['eks', 'rds', 'vpc']) {
    await page.waitForFunction(
      (s) => document.querySelector(`[data-service="${s}"] [role="switch"]`)?.getAttribute('aria-checked') === 'true',
      service,
    )
    t.equal(await switchOf(service).getAttribute('aria-checked'), 'true', `the wizard's ${service} switch is on`)
  }
  await screenshot(page, '17b-wizard-assistant-apply-all')
  t.same(problems.errors, [])
})
