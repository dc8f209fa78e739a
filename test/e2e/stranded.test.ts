// A stranded environment in Chromium: the list marks it, its page names each refused value with the
// reason, and the wizard opens it at the step of the first one with that field in error until the
// value changes. Relations between fields: Minimum nodes 10 with Maximum nodes 5 is said at both fields
// as soon as they contradict, and goes from both once they agree (while the organisation's rules still
// warn at another EKS field, the stored public endpoint, without marking it invalid).
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { startGitServer } from '../harness/git-server.ts'
import { oldDefaults, strandEnvironment } from '../harness/stranded.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

const DEPLOY_KEY = 'iesE2eStrandedToken0123456789abcdef'

t.test('stranded environment in the list, the detail page, the push preview and the wizard; relations at both fields', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const remote = await git.createRepo('old', { 'README.md': '# old\n' })
  const ies = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  ies.config.publicUrl = ies.url
  const created = await fetch(`${ies.url}/api/environments`, {
    method: 'POST',
    headers: { ...ies.auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'shop-old',
      globalPrefix: 'acme',
      provider: 'aws',
      region: 'eu-west-1',
      services: { vpc: { enabled: true }, eks: { enabled: true }, rds: { enabled: true } },
      gitRepository: { url: remote, branch: 'main', deployKey: DEPLOY_KEY },
    }),
  })
  t.equal(created.status, 201)
  const id = ((await created.json()) as { data: { id: string } }).data.id
  await strandEnvironment(ies.app, id, oldDefaults({ engineVersion: '16.6' }))

  const browser = await launchBrowser(t)
  const { page, problems } = await newPage(await signedInContext(browser, ies.tokenFor('dev')))

  // --- the list marks it
  await page.goto(`${ies.url}/#/environments`)
  const row = page.getByRole('row', { name: /shop-old/ })
  await row.getByText('stranded').waitFor()
  t.match(
    await row.locator('[title^="The current templates refuse"]').getAttribute('title'),
    /services\.rds\.engineVersion \(must be one of/,
  )

  // --- its page names the field and the reason
  await row.getByRole('link', { name: 'shop-old' }).click()
  const notice = page.getByTestId('stranded')
  await notice.waitFor()
  t.match(await notice.textContent(), /The current templates no longer accept a stored value/)
  t.match(await notice.textContent(), /services\.rds\.engineVersion \(stored: "16\.6"\): Must be one of: "16", "17", "18"/)
  await screenshot(page, '40-stranded-detail')

  // --- the push preview shows the configuration change beside the file diff
  const panel = page.locator('section[aria-labelledby="push-title"]')
  await panel.getByRole('button', { name: 'Preview changes' }).click()
  const change = panel.getByTestId('configuration-change')
  await change.waitFor({ timeout: 120_000 })
  t.match(await change.textContent(), /Migrations: 0001-eks-endpoint-private, 0002-postgresql-major-versions/)
  t.match(await change.getByRole('row', { name: /services\.rds\.engineVersion/ }).textContent(), /"16\.6"\s*"16"/)
  t.match(await change.getByRole('row', { name: /services\.eks\.endpointPublicAccess/ }).textContent(), /true\s*false/)
  await panel.getByTestId('change-preview').waitFor()
  await screenshot(page, '43-configuration-change-preview')

  // --- the wizard opens at the Services step with the field in error, until the value changes
  await notice.getByRole('link', { name: 'Change the values' }).click()
  const rds = page.locator('[data-service="rds"]')
  const version = rds.getByLabel('PostgreSQL version')
  await version.waitFor()
  t.equal(await page.getByRole('button', { name: /Services/ }).getAttribute('aria-current'), 'step', 'opened at the Services step')
  t.equal(await version.getAttribute('aria-invalid'), 'true', 'the refused value is marked at its field')
  await screenshot(page, '41-stranded-wizard')
  const refused = rds.getByText(/Must be one of: "16", "17", "18"/)
  await refused.waitFor()
  await version.selectOption({ label: 'PostgreSQL 16' })
  await refused.waitFor({ state: 'detached' })
  t.equal(await version.getAttribute('aria-invalid'), null, 'the mark goes with the change')

  // --- a relation broken: said at both fields at once
  const eks = page.locator('[data-service="eks"]')
  const min = eks.getByLabel('Minimum nodes')
  const max = eks.getByLabel('Maximum nodes')
  await min.fill('10')
  await max.fill('5')
  const atMin = eks.getByText('Must be at most Maximum nodes (5); it is 10')
  const atMax = eks.getByText('Must be at least Minimum nodes (10); it is 5')
  await atMin.waitFor()
  await atMax.waitFor()
  t.equal(await min.getAttribute('aria-invalid'), 'true')
  t.equal(await max.getAttribute('aria-invalid'), 'true')
  await screenshot(page, '42-relation-both-fields')
  await min.fill('2')
  await atMin.waitFor({ state: 'detached' })
  await atMax.waitFor({ state: 'detached' })
  t.equal(await min.getAttribute('aria-invalid'), null, 'Minimum nodes is no longer marked')
  t.equal(await max.getAttribute('aria-invalid'), null, 'Maximum nodes is no longer marked')
  // Other EKS fields keep what the organisation's rules say (asked a moment after each change): the
  // stored public endpoint open to every address is a warning at the CIDR blocks, whenever it comes;
  // a warning, so the field is not marked invalid.
  await eks.getByText(/Warning from the rule eks_private_endpoint: the public API endpoint is open to every address/).waitFor()
  t.equal(await eks.getByLabel('Public API allowed CIDR blocks').getAttribute('aria-invalid'), null, 'a warning marks nothing invalid')
  t.equal(await min.getAttribute('aria-invalid'), null, 'the rules say nothing of the node counts')
  t.same(problems.errors, [])
})
