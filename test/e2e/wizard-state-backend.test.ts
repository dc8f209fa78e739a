// The wizard's state backend step: "Create one for me" says which bucket IES will
// create when the name is left empty, and asks for the credential to create it with right there (the
// same choice as the Cloud credential step), instead of "Leave empty to let IES choose" followed by
// "bucket: is required" and a credential two steps later. The bucket is really created (moto).
// Until it is, the step and the review say plainly that it does not exist yet.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { startTestMoto } from '../harness/moto.ts'
import { newEnvironmentWizard, screenshot } from './browser.ts'

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

  const { page, problems } = await newEnvironmentWizard(t, ies.url, ies.tokenFor('dev'), 'shop-prod', 'Acme')
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
  const notCreated = page.getByTestId('backend-not-created')
  t.match(await notCreated.textContent(), /does not exist yet.*acme-shop-prod-tfstate/, 'the step says the bucket does not exist yet')
  await screenshot(page, '31-wizard-state-backend')
  await create.click()
  const done = page.getByText('State bucket created')
  await done.waitFor({ timeout: 60_000 })
  t.match(await page.locator('.notice').filter({ hasText: 'State bucket created' }).textContent(), /acme-shop-prod-tfstate/)
  t.equal(await bucket.inputValue(), 'acme-shop-prod-tfstate', 'the created bucket is the environment backend now')
  t.ok(await page.getByLabel('Use an existing bucket').isChecked())
  t.equal(await notCreated.count(), 0, 'no warning once the bucket is created')

  // The Cloud credential step shows the same choice.
  await page.getByRole('button', { name: 'Next: Git repository' }).click()
  await page.getByRole('button', { name: 'Next: Cloud credential' }).click()
  t.ok(await page.getByLabel(/sandbox/).isChecked(), 'the credential chosen for the bucket')
  await page.getByRole('button', { name: 'Next: Review' }).click()
  await page.getByRole('button', { name: 'Create environment' }).waitFor()
  t.equal(await page.getByTestId('review-bucket-not-created').count(), 0, 'the review has nothing to warn about')
  t.same(problems.errors, [])
})

t.test('state backend: "Create one for me" without creating it warns at the step and before creating', async (t) => {
  const ies = await startTestApp(t)
  ies.config.publicUrl = ies.url
  const { page, problems } = await newEnvironmentWizard(t, ies.url, ies.tokenFor('dev'), 'shop-dev')
  await page.getByRole('button', { name: 'Next: Services' }).click()
  await page.getByRole('button', { name: 'Next: State backend' }).click()
  await page.getByLabel('Create one for me').waitFor() // the step is shown: an absent warning means something
  t.equal(await page.getByTestId('backend-not-created').count(), 0, 'no warning without "Create one for me"')
  await page.getByLabel('Create one for me').check()
  const atStep = page.getByTestId('backend-not-created')
  await atStep.waitFor()
  t.match(await atStep.textContent(), /The state bucket does not exist yet/)
  t.match(await atStep.textContent(), /acme-shop-dev-tfstate is created only by "Create the state bucket"/)
  t.match(await atStep.textContent(), /generation and pushes use it only after it is created/)
  t.match(await atStep.textContent(), /keeps its Terraform state locally/, 'the name left empty: nothing is stored')

  // Not created: the review says so beside the create button.
  await page.getByRole('button', { name: 'Review', exact: true }).click()
  const atReview = page.getByTestId('review-bucket-not-created')
  await atReview.waitFor()
  t.match(await atReview.textContent(), /does not exist yet.*acme-shop-dev-tfstate/)
  t.ok(
    await page.locator('.card').filter({ has: atReview }).getByRole('button', { name: 'Create environment' }).isVisible(),
    'the warning is beside the create button',
  )
  await screenshot(page, '32-wizard-state-backend-not-created')

  // A typed name is stored with the environment: Terraform cannot reach it until it is created.
  await page.getByRole('button', { name: 'State backend', exact: true }).click()
  await page.getByLabel('Bucket name').fill('acme-shop-dev-state')
  await page.getByRole('button', { name: 'Review', exact: true }).click()
  t.match(await atReview.textContent(), /acme-shop-dev-state is created only by.*names a bucket Terraform cannot reach/)

  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.waitForURL(/#\/environments\/[0-9a-f-]{36}/)
  const id = /environments\/([0-9a-f-]{36})/.exec(page.url())![1]
  const env = await fetch(`${ies.url}/api/environments/${id}`, { headers: ies.auth('dev') }).then((r) => r.json())
  t.equal(env.data?.terraformBackend?.bucket, 'acme-shop-dev-state', 'created, with the bucket still to create')
  t.same(problems.errors, [])
})
