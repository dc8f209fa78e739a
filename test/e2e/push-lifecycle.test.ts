// The lifecycle UI in Chromium against the real lifecycle: a git http-backend server holds the templates
// (TEMPLATES_REPO, so a template upgrade is a commit there) and the customer's repository; the git
// CLI plays the customer. Preview before the first push (the customer's README is kept), push, the
// last push and "behind" on the detail page, the list's banner with "Preview and update all" (each
// environment planned first: without a state bucket, it says why there is no plan), then
// a conflict shown in words, the branch untouched, and "Push to a new branch instead".
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../harness/app.ts'
import { startGitServer } from '../harness/git-server.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_dWktbGlmZWN5Y2xlLWRlcGxveS1rZXk'
const BASIC = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
const IDENTITY = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid', '-c', `http.extraHeader=${BASIC}`]

t.test('preview, push, behind, update all, conflict in the UI', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
  await git.createRepo('shop', { 'README.md': '# shop, by the platform team\n' })
  const ies = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEMPLATES_REPO: git.url('templates', true) })
  ies.config.publicUrl = ies.url

  /** A clone worked on with the git CLI, as the customer (or the templates' maintainer) would. */
  const checkout = async (repo: string) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `ies-ui-${repo}-`))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const gitIn = async (...args: string[]) => (await run('git', [...IDENTITY, ...args], { cwd: dir })).stdout
    await gitIn('clone', '-q', git.url(repo), '.')
    const file = (p: string) => path.join(dir, ...p.split('/'))
    return {
      write: (p: string, content: string) => writeFile(file(p), content),
      edit: async (p: string, change: (text: string) => string) => writeFile(file(p), change(await readFile(file(p), 'utf8'))),
      commitAndPush: async (message: string) => {
        await gitIn('add', '-A')
        await gitIn('commit', '-q', '-m', message)
        await gitIn('push', '-q', 'origin', 'HEAD:main')
      },
    }
  }
  const head = async (ref = 'main') => (await git.git('shop', ['rev-parse', ref])).trim()
  const show = (spec: string) => git.git('shop', ['show', spec])

  const created = await fetch(`${ies.url}/api/environments`, {
    method: 'POST',
    headers: { ...ies.auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'shop',
      globalPrefix: 'acme',
      provider: 'aws',
      region: 'eu-west-1',
      services: {},
      gitRepository: { url: git.url('shop'), branch: 'main', deployKey: DEPLOY_KEY },
    }),
  })
  t.equal(created.status, 201)
  const envId = (await created.json()).data.id as string

  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  const panel = page.locator('section[aria-labelledby="push-title"]')

  // --- first push, previewed: the customer's README is not touched
  await page.goto(`${ies.url}/#/environments/${envId}`)
  await panel.getByText('Never pushed yet.').waitFor()
  await panel.getByRole('button', { name: 'Preview changes' }).click()
  const preview = panel.getByTestId('push-preview')
  await preview.waitFor({ timeout: 180_000 })
  t.match(await preview.getByTestId('change-summary').textContent(), /^\d+ files change: \d+ added\.$/, 'only additions')
  t.equal(await preview.locator('[data-path="README.md"]').count(), 0, 'the README is not in the change')
  // a long change starts folded: open the terraform folder, then the file
  const mainTf = preview.locator('button[data-path="terraform/main.tf"]')
  if (!(await mainTf.isVisible()))
    await preview
      .locator('summary')
      .filter({ hasText: /^terraform\// })
      .click()
  await mainTf.click()
  t.match(await preview.getByTestId('file-diff').textContent(), /terraform\/main\.tf/)
  await screenshot(page, '24-push-preview')
  t.equal(await head(), (await git.git('shop', ['rev-parse', 'main'])).trim(), 'the preview wrote nothing')
  const beforeFirst = await head()
  await preview.getByRole('button', { name: 'Push', exact: true }).click()
  const pushed = panel.getByTestId('pushed-commit')
  await pushed.waitFor({ timeout: 180_000 })
  const first = await pushed.getByTestId('commit-id').getAttribute('data-commit')
  t.not(first, beforeFirst)
  t.equal(await head(), first, 'the branch points at the pushed commit')
  t.equal(await show('main:README.md'), '# shop, by the platform team\n', 'the README is kept')
  await panel.getByTestId('last-push').waitFor()
  t.equal(await panel.getByTestId('last-push-commit').getAttribute('data-commit'), first, 'the last push is shown')
  t.match(await panel.getByTestId('behind-status').textContent(), /^Up to date/)

  // --- the customer adds a file and edits a generated one; the templates move on
  const customer = await checkout('shop')
  await customer.write('terraform/team.tf', '# our own module\n')
  await customer.edit('terraform/providers.tf', (x) => x.replace(/^.*\n/, '# customer: our provider\n'))
  await customer.commitAndPush('customer: team module, provider header')
  const templates = await checkout('templates')
  await templates.edit('terraform/versions.tf', (x) => `${x}# upgrade 1\n`)
  await templates.commitAndPush('templates: upgrade 1')

  // --- the list flags it; preview and update all
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Environments' }).click()
  const banner = page.getByTestId('upgrades')
  await banner.waitFor()
  t.match(await banner.textContent(), /1 environment is behind/)
  t.equal(await page.getByRole('row', { name: /shop/ }).getByText('behind', { exact: true }).count(), 1, 'the row says so')
  // Every job of "Update all" is followed by the batch status route, one request per round.
  const jobRequests: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/jobs')) jobRequests.push(url.pathname + url.search)
  })
  const upgradeBodies: string[] = []
  page.on('request', (r) => r.url().endsWith('/environments/upgrade') && upgradeBodies.push(r.postData() ?? ''))
  await banner.getByLabel(/Plan each environment first/).check()
  await banner.getByRole('button', { name: 'Preview and update all' }).click()
  const row = banner.locator('[data-upgrade="shop"]')
  await row.getByTestId('upgrade-outcome').waitFor({ timeout: 180_000 })
  t.match(await row.getByTestId('upgrade-outcome').textContent(), /^\d+ files? change: \d+ modified\.$/, 'only modifications')
  t.match(JSON.parse(upgradeBodies[0]), { dryRun: true, plan: true }, 'the preview is planned')
  await row.getByTestId('rollout-plan').waitFor({ timeout: 60_000 })
  t.match(await row.getByTestId('rollout-plan').textContent(), /no plan: .*state backend/, 'why there is no plan')
  await screenshot(page, '25-upgrade-preview')
  await banner.getByRole('button', { name: 'Update all 1' }).click()
  await row.getByText(/^Updated: commit/).waitFor({ timeout: 180_000 })
  // The banner's title follows once every row has its outcome (a later render than the row's).
  await banner.getByText(/^Update finished:/).waitFor()
  t.match(await banner.textContent(), /Update finished: 1 updated, 0 in conflict, 0 failed/)
  t.ok(jobRequests.length > 0, `jobs followed: ${jobRequests.join(' ')}`)
  t.ok(
    jobRequests.every((u) => u.startsWith('/api/jobs?ids=') && u.includes('wait=true')),
    'by the batch status route only',
  )
  t.match(await show('main:terraform/versions.tf'), /# upgrade 1\n$/, 'the upgrade landed')
  t.equal(await show('main:terraform/team.tf'), '# our own module\n', "the customer's file is kept")
  t.match(await show('main:terraform/providers.tf'), /^# customer: our provider\n/, "the customer's edit is kept")
  await banner.getByRole('button', { name: 'Done' }).click()
  await banner.waitFor({ state: 'detached' })

  // --- a template change to the line the customer edited: a conflict, in words, branch untouched
  await templates.edit('terraform/providers.tf', (x) => x.replace(/^.*\n/, '# templates: new provider\n'))
  await templates.commitAndPush('templates: providers header')
  await page.getByRole('link', { name: 'shop', exact: true }).click()
  await panel
    .getByTestId('behind-status')
    .getByText(/The templates changed since the last push/)
    .waitFor()
  const beforeConflict = await head()
  await panel.getByRole('button', { name: 'Preview changes' }).click()
  await preview.waitFor({ timeout: 180_000 })
  await preview.locator('button[data-path="terraform/providers.tf"]').getByText('conflict').waitFor()
  await preview.getByRole('button', { name: 'Push', exact: true }).click()
  const conflict = panel.getByTestId('push-conflict')
  await conflict.waitFor({ timeout: 180_000 })
  const words = await conflict.textContent()
  t.match(words, /Nothing was pushed: 1 file \(terraform\/providers\.tf\)/)
  t.match(words, /Your branch is untouched/)
  t.match(words, /In your repository now.*# customer: our provider/)
  t.match(words, /What IES generates now.*# templates: new provider/)
  await screenshot(page, '26-push-conflict')
  t.equal(await head(), beforeConflict, 'the branch is left as it was')
  await panel.getByRole('button', { name: 'Push to a new branch instead' }).click()
  await pushed.waitFor({ timeout: 180_000 })
  const branch = await pushed.getByTestId('pushed-branch').textContent()
  t.match(branch, /^ies\/update-/, 'a new branch for a pull request')
  t.equal(await head(branch!), await pushed.getByTestId('commit-id').getAttribute('data-commit'))
  t.equal(await head(), beforeConflict, 'main is still untouched')
  t.same(problems.errors, [])
})
