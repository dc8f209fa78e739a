// The wizard's state backend step (issue 18, point 6): "Create one for me" says which bucket IES will
// create when the name is left empty, and asks for the credential to create it with right there (the
// same choice as the Cloud credential step), instead of "Leave empty to let IES choose" followed by
// "bucket: is required" and a credential two steps later. The bucket is really created (moto).
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { startTestMoto } from '../harness/moto.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

t.test('state backend: the proposed bucket, created with a credential chosen in the step', async (t) => {
  const moto = await startTestMoto(t)
  const ies = await startTestApp(t, { AWS_ENDPOINT_URL: moto.endpoint })
  ies.config.publicUrl = ies.url
  const key = await moto.createAccessKey('ies-backend-e2e')
  const saved = await fetch(`${ies.url}/api/cloud-credentials`, {
    method: 'POST',
    headers: { ...ies.auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'sandbox',
      provider: 'aws',
      credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey },
    }),
  })
  t.equal(saved.status, 201)

  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  await page.goto(`${ies.url}/#/environments/new`)
  await page.getByLabel('Environment name').fill('shop-prod')
  await page.getByLabel('Global prefix').fill('Acme')
  await page.getByRole('button', { name: 'Next: Services' }).click()
  await page.getByRole('button', { name: 'Next: State backend' }).click()
  await page.getByLabel('Create one for me').check()

  const bucket = page.getByLabel('Bucket name')
  t.equal(await bucket.getAttribute('placeholder'), 'acme-shop-prod-tfstate', 'the bucket IES proposes')
  await page.getByText('Left empty, IES creates acme-shop-prod-tfstate.').waitFor()

  // The credential is chosen here; without one the button says why it cannot create.
  await page.getByLabel('None for now').check()
  await page.getByTestId('backend-needs-credential').waitFor()
  const create = page.getByRole('button', { name: 'Create the state bucket' })
  t.ok(await create.isDisabled(), 'no bucket without a credential')
  await page.getByLabel(/sandbox/).check()
  t.equal(await page.getByTestId('backend-needs-credential').count(), 0)
  await screenshot(page, '31-wizard-state-backend')
  await create.click()
  const done = page.getByText('State bucket created')
  await done.waitFor({ timeout: 60_000 })
  t.match(await page.locator('.notice').filter({ hasText: 'State bucket created' }).textContent(), /acme-shop-prod-tfstate/)
  t.equal(await bucket.inputValue(), 'acme-shop-prod-tfstate', 'the created bucket is the environment backend now')
  t.ok(await page.getByLabel('Use an existing bucket').isChecked())

  // The Cloud credential step shows the same choice.
  await page.getByRole('button', { name: 'Next: Git repository' }).click()
  await page.getByRole('button', { name: 'Next: Cloud credential' }).click()
  t.ok(await page.getByLabel(/sandbox/).isChecked(), 'the credential chosen for the bucket')
  t.same(problems.errors, [])
})
