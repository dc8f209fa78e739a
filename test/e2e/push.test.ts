// Push from the web UI: an environment made in the wizard whose repository is the real Git server
// (git http-backend with Basic auth) behind an HTTPS front on loopback, the deploy key as the HTTPS
// password; push from the environment screen, follow the job, see the pushed commit, and check
// with the git CLI that the branch points at it.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { startGitServer } from '../harness/git-server.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'
import { startTlsFront } from './tls-front.ts'

const run = promisify(execFile)
// An access token: isomorphic-git pushes over HTTPS, where an SSH key cannot authenticate.
const DEPLOY_KEY = 'iesE2eDeployToken0123456789abcdef'

t.test('push from the environment screen to a real Git server over HTTPS', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('customer', { 'README.md': '# shop\n' })
  const before = (await git.git('customer', ['rev-parse', 'main'])).trim()
  const front = await startTlsFront({ host: '127.0.0.1', port: Number(new URL(git.baseUrl).port) })
  t.teardown(() => front.stop())
  front.trustInProcess()
  const remote = `${front.baseUrl}/customer.git`

  const ies = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  ies.config.publicUrl = ies.url
  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  const pushBodies: string[] = []
  page.on('request', (r) => r.url().endsWith('/push') && pushBodies.push(r.postData() ?? ''))

  // --- the environment, with its repository and deploy key, made in the wizard
  await page.goto(`${ies.url}/#/environments/new`)
  await page.getByLabel('Environment name').fill('push-shop')
  await page.getByLabel('Global prefix').fill('acme')
  await page.getByRole('button', { name: 'Git repository' }).click()
  await page.getByLabel('Repository URL').fill(remote)
  await page.getByLabel('Branch').fill('main')
  await page.getByLabel('Deploy key or access token (write-only)').fill(DEPLOY_KEY)
  await page.getByRole('button', { name: 'Review' }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.getByRole('heading', { name: 'push-shop', exact: true }).waitFor()

  // --- push and follow the job
  const panel = page.locator('section[aria-labelledby="push-title"]')
  t.match(await panel.textContent(), remote, 'the push target is named')
  await panel.getByRole('button', { name: 'Push to Git' }).click()
  const pushed = panel.getByTestId('pushed-commit')
  const failed = panel.getByTestId('job-failed')
  await Promise.race([pushed.waitFor({ timeout: 180_000 }), failed.waitFor({ timeout: 180_000 })])
  if (await failed.isVisible()) t.fail(`push failed: ${await failed.textContent()}`)
  await screenshot(page, '16-push')
  t.match(await panel.getByRole('list', { name: 'Push log' }).textContent(), /Job succeeded/)
  const commit = await pushed.getByTestId('commit-id').getAttribute('data-commit')
  t.match(commit, /^[0-9a-f]{40}$/, 'the pushed commit id is shown')
  t.match(await pushed.textContent(), /main/)

  // --- the git CLI, over the same HTTPS URL, sees the commit on the branch
  const basic = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
  const { stdout } = await run('git', ['-c', `http.extraHeader=${basic}`, 'ls-remote', remote, 'refs/heads/main'], {
    env: { ...process.env, GIT_SSL_CAINFO: front.certFile },
  })
  t.equal(stdout.split(/\s+/)[0], commit, 'the branch points at the pushed commit')
  t.equal((await git.git('customer', ['rev-parse', `${commit}^`])).trim(), before, 'on top of the previous tip')
  t.match(await git.git('customer', ['log', '-1', '--format=%s', 'main']), /^Generate push-shop/)
  t.ok(
    (await git.git('customer', ['ls-tree', '-r', '--name-only', 'main'])).includes('terraform/main.tf'),
    'the generated files are on the branch',
  )

  // --- pushing the same configuration again changes nothing, and says so
  await panel.getByRole('button', { name: 'Push to Git' }).click()
  await panel.getByText('already up to date').waitFor({ timeout: 180_000 })
  t.equal((await git.git('customer', ['rev-parse', 'main'])).trim(), commit)
  t.notOk(
    pushBodies.some((b) => b.includes('PRIVATE KEY')),
    'the browser never sends the key with a push',
  )
  t.notMatch(await page.content(), /ZTJlLWRlcGxveS1rZXktZm9yLXB1c2g/, 'the key is not shown anywhere')
  t.same(problems.errors, [])
})
