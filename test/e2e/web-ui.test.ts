// The web UI in Debian's Chromium against the real server and database: environments, the
// catalog-driven wizard, credentials with a real check (moto), edit, export, delete, preferences.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { startTestMoto } from '../harness/moto.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

t.test('web UI: credentials, wizard, detail, edit, export, delete, preferences', async (t) => {
  const moto = await startTestMoto(t)
  const ies = await startTestApp(t, { AWS_ENDPOINT_URL: moto.endpoint, AZURE_AUTHORITY_HOST: 'http://127.0.0.1:9' })
  ies.config.publicUrl = ies.url
  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true })

  // env.js is made from the server's configuration
  const envJs = await (await fetch(`${ies.url}/env.js`)).text()
  t.match(envJs, `"API_URL":"${ies.url}/api"`)
  t.match(envJs, `"AUTH_CLIENT_ID":"ies-app"`)

  await page.goto(ies.url)
  await page.getByRole('heading', { name: 'Environments', exact: true }).waitFor()
  await page.getByText('No environments yet').waitFor()
  t.equal(await page.getByTestId('username').textContent(), 'dev')
  await screenshot(page, '01-environments-empty')

  // --- cloud credentials: create, validate (valid and invalid), default
  const key = await moto.createAccessKey('ies-e2e')
  await nav('Cloud credentials').click()
  await page.getByText('No cloud credentials yet').waitFor()
  await page.getByRole('button', { name: 'Add credential' }).click()
  await page.getByRole('button', { name: 'Save credential' }).click()
  await page.getByText('is required').first().waitFor()
  t.ok(
    await page.getByLabel('Secret access key').evaluate((el) => (el as HTMLInputElement).type === 'password'),
    'secrets are typed into password fields',
  )
  await page.getByLabel('Name').fill('sandbox')
  await page.getByLabel('Access key ID').fill(key.accessKeyId)
  await page.getByLabel('Secret access key').fill(key.secretAccessKey)
  await page.getByLabel('Default region').fill('eu-west-1')
  await screenshot(page, '02-credential-form')
  await page.getByRole('button', { name: 'Save credential' }).click()
  const row = page.locator('tr[data-credential="sandbox"]')
  await row.waitFor()
  t.notMatch(await page.content(), key.secretAccessKey, 'the secret is not shown back')
  await row.getByRole('button', { name: 'Validate' }).click()
  await row.getByTestId('validation-result').waitFor()
  t.match(await row.getByTestId('validation-result').textContent(), /^valid/)
  t.match(await row.getByTestId('validation-result').textContent(), key.arn)

  // an Azure credential whose check cannot succeed (the authority host is a closed loopback port)
  await page.getByRole('button', { name: 'Add credential' }).click()
  await page.getByLabel('Name').fill('azure-broken')
  await page.getByLabel('Provider').selectOption({ label: 'Azure' })
  await page.getByLabel('Subscription ID').fill('00000000-0000-4000-8000-000000000001')
  await page.getByLabel('Tenant ID').fill('00000000-0000-4000-8000-000000000002')
  await page.getByLabel('Client ID').fill('00000000-0000-4000-8000-000000000003')
  await page.getByLabel('Client secret').fill('not-a-secret')
  await page.getByRole('button', { name: 'Save credential' }).click()
  const broken = page.locator('tr[data-credential="azure-broken"]')
  await broken.waitFor()
  await broken.getByRole('button', { name: 'Validate' }).click()
  await broken.getByTestId('validation-result').waitFor()
  // the provider cannot be reached: that is "could not check", not "invalid"
  t.equal(await broken.getByTestId('validation-result').getAttribute('data-state'), 'unreachable')
  t.match(await broken.getByTestId('validation-result').textContent(), /^could not check.*checked /)
  // the server keeps each credential's last check with its time: still shown after a reload
  await page.reload()
  await broken.getByTestId('validation-result').waitFor()
  t.equal(await broken.getByTestId('validation-result').getAttribute('data-state'), 'unreachable', 'kept across a reload')
  t.equal(await row.getByTestId('validation-result').getAttribute('data-state'), 'valid')
  await row.getByRole('button', { name: 'Set default' }).click()
  await row.getByText('default', { exact: true }).waitFor()
  await screenshot(page, '03-credentials')

  // --- the wizard
  await nav('Environments').click()
  await page.getByRole('link', { name: 'Create your first environment' }).click()
  await page.getByRole('heading', { name: 'New environment', exact: true }).waitFor()
  const name = page.getByLabel('Environment name')
  await name.fill('1abc')
  await page.getByText('Must start with a lowercase letter').waitFor()
  await name.fill('e2e-shop')
  t.equal(await page.getByText('Must start with a lowercase letter').count(), 0, 'the error goes as the user types')
  await page.getByLabel('Global prefix').fill('acme')
  await page.getByLabel('Domain').fill('not a domain')
  await page.getByText('At least two labels').waitFor()
  await page.getByLabel('Domain').fill('shop.example.com')
  await screenshot(page, '04-wizard-basics')
  await page.getByRole('button', { name: 'Next: Services' }).click()

  // services from the catalog, grouped by category, with an enable toggle each
  await page.getByRole('group', { name: 'Databases' }).waitFor()
  const rds = page.locator('[data-service="rds"]')
  await rds.getByRole('switch', { name: 'Enable RDS PostgreSQL' }).click()
  const storage = rds.getByLabel('Storage (GiB)')
  t.equal(await storage.inputValue(), '20', 'a catalog default fills the field')
  await storage.fill('0')
  await rds.getByText('Enter a whole number of 1 or more.').waitFor()
  t.notMatch(await rds.locator('p.error').first().textContent(), /[[\]^$]/, 'no regular expression in the message')
  t.notOk(await rds.getByText('^[1-9][0-9]*$').isVisible(), 'the rule is a detail, closed')
  await rds.getByText('The exact rule').click()
  await rds.getByText('^[1-9][0-9]*$').waitFor()
  await storage.fill('50')
  const sqs = page.locator('[data-service="sqs"]')
  await sqs.getByRole('switch', { name: 'Enable SQS' }).click()
  await sqs.getByLabel('Queue name').fill('orders')
  await screenshot(page, '05-wizard-services')
  await page.getByRole('button', { name: 'Next: State backend' }).click()
  await page.getByLabel('Use an existing bucket').check()
  await page.getByLabel('Bucket name').fill('acme-tf-state')
  await page.getByRole('button', { name: 'Next: Git repository' }).click()
  await page.getByLabel('Repository URL').fill('https://git.example.com/acme/shop-infra.git')
  await page
    .getByLabel('Deploy key or access token (write-only)')
    .fill('-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----')
  await page.getByRole('button', { name: 'Next: Cloud credential' }).click()
  await page.getByLabel(/sandbox/).waitFor()
  t.ok(await page.getByLabel(/sandbox/).isChecked(), 'the default credential is preselected')
  // the drift check's schedule: the server's range, said at the field; saving waits for a valid value
  const drift = page.getByLabel('Check for drift every (hours)')
  t.equal(await drift.inputValue(), '', 'no schedule by default')
  await drift.fill('721')
  await page.getByText('A whole number of hours from 1 to 720, or empty to check only when asked').waitFor()
  t.equal(await drift.getAttribute('aria-invalid'), 'true')
  await drift.fill('24')
  await page.getByText('A whole number of hours from 1 to 720').waitFor({ state: 'detached' })
  t.equal(await drift.getAttribute('aria-invalid'), null)
  await page.getByRole('button', { name: 'Next: Review' }).click()
  // a readable summary with the catalog's labels; the YAML only on request
  const summary = page.getByTestId('review-summary')
  const rdsSummary = await summary.locator('[data-summary-service="rds"]').textContent()
  t.match(rdsSummary, /RDS PostgreSQL/)
  t.match(rdsSummary, /Storage \(GiB\)50/, 'a label, and the value the user chose')
  t.notMatch(rdsSummary, /allocatedStorage/, 'no keys')
  t.match(await summary.textContent(), /deploy key: a new key \(write-only/)
  t.equal(await summary.getByTestId('drift-schedule').textContent(), 'Every 24 hours')
  t.equal(await page.getByTestId('review').count(), 0, 'no YAML until asked')
  await page.getByRole('button', { name: 'Show as YAML' }).click()
  const review = await page.getByTestId('review').textContent()
  t.match(review, /name: e2e-shop/)
  t.match(review, /allocatedStorage: 50/)
  t.match(review, /deployKey: \(new key, write-only\)/)
  t.notMatch(review, /BEGIN OPENSSH/, 'the review never shows the key')
  await screenshot(page, '06-wizard-review')
  await page.getByRole('button', { name: 'Create environment' }).click()

  // --- detail
  await page.getByRole('heading', { name: 'e2e-shop', exact: true }).waitFor()
  await page.getByText('Deploy key stored').waitFor()
  const detailServices = await page.getByTestId('detail-services').textContent()
  t.match(detailServices, /RDS PostgreSQL.*Storage \(GiB\)50/, 'the detail page shows catalog labels')
  t.notMatch(detailServices, /allocatedStorage/)
  await page.getByText('sandbox').first().waitFor()
  t.equal(await page.getByTestId('drift-schedule').textContent(), 'Every 24 hours', 'the detail page shows the schedule')
  const exported = await page.getByTestId('export').textContent()
  t.match(exported, /name: e2e-shop/)
  t.notMatch(exported, /cloudCredentialId|deployKey|hasDeployKey/, 'the export has no credential fields')
  await screenshot(page, '07-environment-detail')

  // the server agrees with what the wizard sent
  const list = await (await fetch(`${ies.url}/api/environments`, { headers: ies.auth('dev') })).json()
  const id = list.data[0].id
  const stored = (await (await fetch(`${ies.url}/api/environments/${id}`, { headers: ies.auth('dev') })).json()).data
  t.same(stored.services.rds.allocatedStorage, 50)
  t.same(stored.services.rds.enabled, true)
  t.same(stored.services.sqs.queueName, 'orders')
  t.same(stored.services.vpc.enabled, false, 'services the user left alone are stored with catalog defaults')
  t.equal(stored.domain, 'shop.example.com')
  t.equal(stored.driftCheckHours, 24, 'the schedule is saved with the environment')

  // --- edit: immutable fields are read-only; the server's field errors land next to the field
  await page.getByRole('link', { name: 'Edit' }).click()
  await page.getByRole('heading', { name: 'Edit e2e-shop', exact: true }).waitFor()
  t.ok((await page.getByLabel('Environment name').getAttribute('readonly')) !== null, 'name is read-only when editing')
  t.ok((await page.getByLabel('Global prefix').getAttribute('readonly')) !== null, 'global prefix is read-only when editing')
  await page.getByLabel('Domain').fill('')
  await page.getByRole('button', { name: 'Cloud credential', exact: true }).click()
  t.equal(await page.getByLabel('Check for drift every (hours)').inputValue(), '24', 'the stored schedule is shown')
  await page.getByLabel('Check for drift every (hours)').fill('')
  await page.getByRole('button', { name: 'Next: Review' }).click()
  t.same(
    await page.getByTestId('review-changes').locator('li').allTextContents(),
    ['Domain: shop.example.com → —', 'Drift check: Every 24 hours → Only when asked'],
    'the edit says what changes',
  )
  await page.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('heading', { name: 'e2e-shop', exact: true }).waitFor()
  await page.getByText('None (no host-based ingresses)').waitFor()
  t.equal(await page.getByTestId('drift-schedule').textContent(), 'Only when asked')
  const edited = (await (await fetch(`${ies.url}/api/environments/${id}`, { headers: ies.auth('dev') })).json()).data
  t.notOk('driftCheckHours' in edited, 'cleared: the schedule is off on the server')

  // --- the list with filters and sort
  await nav('Environments').click()
  await page.getByRole('link', { name: 'e2e-shop' }).waitFor()
  await page.getByLabel('Provider').selectOption({ label: 'Azure' })
  await page.getByText('No environment matches these filters').waitFor()
  await page.getByLabel('Provider').selectOption({ label: 'All providers' })
  await page.getByRole('link', { name: 'e2e-shop' }).waitFor()
  await screenshot(page, '08-environments-list')

  // --- a credential in use cannot be deleted; the blocking environment is named
  await nav('Cloud credentials').click()
  await row.getByRole('button', { name: 'Delete sandbox' }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete credential' }).click()
  await page.getByTestId('credential-in-use').waitFor()
  t.match(await page.getByTestId('credential-in-use').textContent(), /e2e-shop/)
  await screenshot(page, '09-credential-in-use')

  // --- delete the environment with confirmation
  await nav('Environments').click()
  await page.getByRole('link', { name: 'e2e-shop' }).click()
  await page.getByRole('button', { name: 'Delete' }).click()
  const dialog = page.getByRole('alertdialog')
  await dialog.waitFor()
  await screenshot(page, '10-delete-confirmation')
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
  await page.getByRole('button', { name: 'Delete' }).click()
  await dialog.getByRole('button', { name: 'Delete environment' }).click()
  await page.getByText('No environments yet').waitFor()

  // --- a credential's stored values (masked), rename, and rotation of its secret
  await nav('Cloud credentials').click()
  await row.getByRole('button', { name: 'Edit sandbox' }).click()
  const edit = page.getByTestId('edit-credential')
  await edit.getByText('eu-west-1', { exact: true }).waitFor()
  t.notMatch(await edit.textContent(), key.accessKeyId, 'the access key is masked')
  await edit.getByLabel('Name').fill('sandbox-main')
  await edit.getByLabel('New default region').fill('EU WEST')
  await edit.getByRole('button', { name: 'Save' }).click()
  await edit.getByText('Only lowercase letters, digits and hyphens').waitFor()
  await edit.getByLabel('New access key ID').fill(key.accessKeyId)
  await edit.getByLabel('New secret access key').fill(key.secretAccessKey)
  await edit.getByLabel('New default region').fill('eu-central-1')
  await edit.getByRole('button', { name: 'Save' }).click()
  const renamed = page.locator('tr[data-credential="sandbox-main"]')
  await renamed.waitFor()
  await renamed.getByRole('button', { name: 'Validate' }).click()
  await renamed.getByTestId('validation-result').waitFor()
  t.equal(await renamed.getByTestId('validation-result').getAttribute('data-state'), 'valid', 'the rotated secret works')
  const credentials = (await (await fetch(`${ies.url}/api/cloud-credentials`, { headers: ies.auth('dev') })).json()).data
  t.ok(
    credentials.some((c: { name: string }) => c.name === 'sandbox-main'),
    'renamed on the server',
  )

  // --- preferences: the theme applies at once and is stored
  await nav('Preferences').click()
  await page.getByLabel('Theme').selectOption({ label: 'Dark' })
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark')
  await page.getByText('Preferences saved').waitFor()
  const prefs = (await (await fetch(`${ies.url}/api/users/me/preferences`, { headers: ies.auth('dev') })).json()).data
  t.equal(prefs.theme, 'dark')
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  t.equal(await background(), 'rgb(15, 20, 26)', 'the dark palette applies')
  await screenshot(page, '11-preferences-dark')
  // 'System' follows the operating system's choice.
  await page.getByLabel('Theme').selectOption({ label: 'Follow the system' })
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'system')
  await page.emulateMedia({ colorScheme: 'light' })
  t.equal(await background(), 'rgb(246, 247, 249)', 'system theme, light OS')
  await page.emulateMedia({ colorScheme: 'dark' })
  t.equal(await background(), 'rgb(15, 20, 26)', 'system theme, dark OS')

  t.same(problems.errors, [], 'no page errors and no CSP violations')
})
