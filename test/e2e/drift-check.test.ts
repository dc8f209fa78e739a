// "Check for drift now" on the environment page, against the real server: an environment without a
// state bucket is refused in words (the wizard step and field to set, no error code), one that
// cannot be pushed likewise, and one that can be checked queues a drift job that the page follows
// to its end and whose error it shows, and the page's job list names it. Fast: the server's Terraform cannot be started, so the check
// fails at once (TERRAFORM_UNAVAILABLE); a check that runs against moto is test/server/jobs/plan/plan.test.ts,
// its outcome on the page test/desktop/renderer/components/drift-check-now.test.ts.
import t from 'tap'
import type { Page } from 'playwright-core'
import { startTestApp } from '../harness/app.ts'
import { startGitServer } from '../harness/git-server.ts'
import { createEnvironment } from '../harness/jobs.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

const DEPLOY_KEY = 'iest_ZHJpZnQtY2hlY2stZTJlLWRlcGxveS1rZXk'

t.test('check for drift now: refusals in words, a check followed to its end', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const remote = await git.createRepo('drifting', { 'README.md': '# drifting\n' })
  const ies = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TERRAFORM_BIN: '/nonexistent/terraform' })
  ies.config.publicUrl = ies.url
  const headers = { ...ies.auth('dev'), 'content-type': 'application/json' }
  const credential = (
    await (
      await fetch(`${ies.url}/api/cloud-credentials`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          name: 'drift-e2e',
          provider: 'aws',
          credentials: {
            accessKeyId: 'AKIAIESDRIFTE2E00001',
            secretAccessKey: 'driftE2eSecretKeyThatMustNotLeak000001',
            region: 'eu-central-1',
          },
        }),
      })
    ).json()
  ).data
  const base = { globalPrefix: 'acme', provider: 'aws', region: 'eu-central-1', domain: '', services: { sqs: { enabled: true } } }
  const backend = { bucket: 'ies-drift-e2e-state', region: 'eu-central-1' }
  const repository = { url: remote, branch: 'main', deployKey: DEPLOY_KEY }
  const ready = await createEnvironment(ies, {
    ...base,
    name: 'drift-ready',
    cloudCredentialId: credential.id,
    terraformBackend: backend,
    gitRepository: repository,
  })
  const noBucket = await createEnvironment(ies, {
    ...base,
    name: 'drift-no-bucket',
    cloudCredentialId: credential.id,
    gitRepository: repository,
  })
  const noRepo = await createEnvironment(ies, {
    ...base,
    name: 'drift-no-repo',
    cloudCredentialId: credential.id,
    terraformBackend: backend,
  })

  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  const open = async (env: { id: string; name: string }) => {
    await page.goto(`${ies.url}/#/environments/${env.id}`)
    await page.getByRole('heading', { name: env.name, exact: true }).waitFor()
    const check = page.getByTestId('drift-check-now')
    t.match(await page.getByTestId('last-drift-none').textContent(), 'Not checked yet', `${env.name}: no check yet`)
    return check
  }
  const refusal = async (page: Page) => {
    const notice = page.getByTestId('drift-refusal')
    await notice.waitFor()
    return (await notice.textContent()) ?? ''
  }

  // --- no state bucket: 409 from the server, said in words with the step and field
  let check = await open(noBucket)
  await check.getByRole('button', { name: 'Check for drift now' }).click()
  const bucket = await refusal(page)
  t.match(bucket, /no state bucket.*Edit the environment, step State backend: set the Bucket name\./s)
  t.notMatch(bucket, /PLAN_UNAVAILABLE|terraformBackend/, 'no code or field path')
  t.equal(await check.getByRole('link', { name: 'Edit the environment' }).getAttribute('href'), `#/environments/${noBucket.id}/edit`)
  await screenshot(page, 'drift-check-refused')

  // --- no Git repository: 400 from the server (cannot be pushed), said the same way
  check = await open(noRepo)
  await check.getByRole('button', { name: 'Check for drift now' }).click()
  t.match(await refusal(page), /cannot be pushed: .*step Git repository: set the Repository URL\./s)

  // --- ready: the drift job is queued, followed, and its failure shown with its message
  check = await open(ready)
  const queued = page.waitForResponse((r) => r.url().endsWith(`/environments/${ready.id}/drift`) && r.request().method() === 'POST')
  await check.getByRole('button', { name: 'Check for drift now' }).click()
  t.equal((await queued).status(), 202, 'the check is queued')
  const failed = check.getByTestId('job-failed')
  await failed.waitFor({ timeout: 60_000 })
  t.match(await failed.textContent(), /Drift check failed.*TERRAFORM_BIN/s, "the job's error message")
  t.match(await check.getByRole('list', { name: 'Drift check log' }).textContent(), /Job failed/)
  t.ok(await check.getByRole('button', { name: 'Check for drift now' }).isEnabled(), 'the button is offered again')
  t.equal(await page.getByTestId('drift-refusal').count(), 0)
  // the page's job list is read again: the check is in it by its name, without an archive to download
  const entry = page.getByTestId('job-entry').filter({ hasText: 'Drift check' })
  await entry.waitFor()
  t.match(await entry.textContent(), /Drift check\s*failed.*TERRAFORM_BIN/s)
  t.equal(await entry.getByRole('button', { name: /^Download/ }).count(), 0)
  await screenshot(page, 'drift-check-failed')
  t.same(problems.errors, [])
})
