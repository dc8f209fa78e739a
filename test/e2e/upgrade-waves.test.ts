// Upgrades in waves in Chromium against the real lifecycle: a git http-backend server holds the
// templates (TEMPLATES_REPO) and three customers' repositories; the git CLI plays the customer and
// the templates' maintainer. The list's banner names the environment whose stored values the
// templates no longer accept, and rolls out dev, then staging (where the customer's edit conflicts:
// the rollout stops), never reaching prod; each preview planned ("Plan each environment first":
// without a state bucket, each says why there is no plan). Then prod is pinned from its page, and
// follows again.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../harness/app.ts'
import { startGitServer } from '../harness/git-server.ts'
import { waitForJob } from '../harness/jobs.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_d2F2ZXMtdWktZGVwbG95LWtleQ'
const BASIC = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
const IDENTITY = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid', '-c', `http.extraHeader=${BASIC}`]

t.test('the upgrades banner: stranded values, then waves that stop at a conflict', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
  const ies = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEMPLATES_REPO: git.url('templates', true) })
  ies.config.publicUrl = ies.url
  const headers = { ...ies.auth('dev'), 'content-type': 'application/json' }

  const appendAndPush = async (repo: string, file: string, line: string) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `ies-ui-waves-${repo}-`))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const gitIn = (...args: string[]) => run('git', [...IDENTITY, ...args], { cwd: dir })
    await gitIn('clone', '-q', git.url(repo), '.')
    await writeFile(path.join(dir, file), `${await readFile(path.join(dir, file), 'utf8')}${line}\n`)
    await gitIn('commit', '-q', '-am', line)
    await gitIn('push', '-q', 'origin', 'HEAD:main')
  }
  const ids: Record<string, string> = {}
  for (const name of ['web-dev', 'web-staging', 'web-prod', 'old-dev']) {
    await git.createRepo(name, {})
    const created = await fetch(`${ies.url}/api/environments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name,
        globalPrefix: 'acme',
        provider: 'aws',
        region: 'eu-west-1',
        services: { vpc: { enabled: true }, eks: { enabled: true } },
        gitRepository: { url: git.url(name), branch: 'main', deployKey: DEPLOY_KEY },
      }),
    })
    t.equal(created.status, 201)
    ids[name] = ((await created.json()) as any).data.id
    const push = await fetch(`${ies.url}/api/environments/${ids[name]}/push`, { method: 'POST', headers, body: '{}' })
    t.equal((await waitForJob(ies.url, headers, ((await push.json()) as any).data.id)).status, 'succeeded')
  }
  // Stored as an older catalog allowed: a minimum above the maximum (the record keeps services as JSON).
  await ies.app.mongo.db
    .collection<{ _id: string }>('environments')
    .updateOne(
      { _id: ids['old-dev'] },
      { $set: { services: JSON.stringify({ vpc: { enabled: true }, eks: { enabled: true, nodeMinSize: 10, nodeMaxSize: 5 } }) } },
    )
  await appendAndPush('web-staging', 'terraform/versions.tf', '# our own line')
  await appendAndPush('templates', 'terraform/versions.tf', '# templates: the next version')
  const prodBefore = (await git.git('web-prod', ['rev-parse', 'main'])).trim()

  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  await page.goto(`${ies.url}/#/environments`)
  const banner = page.getByTestId('upgrades')
  await banner.waitFor()
  t.match(await banner.textContent(), /4 environments are behind/)
  const stranded = banner.getByTestId('stranded-values')
  t.match(await stranded.textContent(), /old-dev: services\.eks\.node(Min|Max)Size: /, 'the stranded value, with its field and reason')

  await banner.getByLabel(/Upgrade in waves/).check()
  const waves = banner.getByTestId('upgrade-waves')
  t.equal(await waves.getByLabel('Waves').inputValue(), '*-dev\n*-staging\n*-prod', 'dev, staging, prod by default')
  t.equal(await banner.getByRole('button', { name: 'Preview and update all' }).count(), 0, 'in waves: the all-at-once button is gone')
  const upgradeBodies: string[] = []
  page.on('request', (r) => r.url().endsWith('/environments/upgrade') && upgradeBodies.push(r.postData() ?? ''))
  await waves.getByLabel(/Plan each environment first/).check()
  await waves.getByRole('button', { name: 'Roll out in waves' }).click()
  await waves.getByTestId('rollout-stopped').waitFor({ timeout: 180_000 })
  t.match(await waves.getByTestId('rollout-stopped').textContent(), /Stopped at wave 2: web-staging: /)
  const stateOf = async (pattern: string) => waves.locator(`[data-wave="${pattern}"]`).getByTestId('wave-status').textContent()
  t.same([await stateOf('*-dev'), await stateOf('*-staging'), await stateOf('*-prod')], ['done', 'stopped', 'waiting'])
  t.match(await waves.locator('[data-rollout-environment="web-dev"]').textContent(), /web-dev: pushed/)
  t.match(await waves.locator('[data-rollout-environment="web-staging"]').textContent(), /web-staging: conflict/)
  t.match(JSON.parse(upgradeBodies[0]), { plan: true }, 'the previews are planned')
  t.match(
    await waves.locator('[data-rollout-environment="web-dev"]').getByTestId('rollout-plan').textContent(),
    /no plan: .*state backend/,
    'why there is no plan, per environment',
  )
  t.match(
    await waves.getByRole('list', { name: 'Skipped' }).textContent(),
    /old-dev: skipped \(The templates refuse the stored value of services\.eks\.node/,
  )
  await screenshot(page, '42-upgrade-waves')
  t.match(await git.git('web-dev', ['show', 'main:terraform/versions.tf']), /# templates: the next version\n$/, 'dev was upgraded')
  t.equal((await git.git('web-prod', ['rev-parse', 'main'])).trim(), prodBefore, 'prod was not started')

  // Pin prod to the version it was last pushed with, from its page; then follow again.
  await page.goto(`${ies.url}/#/environments/${ids['web-prod']}`)
  const pin = page.getByTestId('templates-pin')
  await pin.getByRole('button', { name: 'Pin to the version last pushed' }).click()
  await pin.getByText(/^Templates: pinned to/).waitFor()
  const prod = (await (await fetch(`${ies.url}/api/environments/${ids['web-prod']}`, { headers })).json()) as any
  t.equal(prod.data.templatesPin, prod.data.lastPush.templatesCommit, 'pinned to the version last pushed')
  t.match(prod.data.behind, { templates: true, commits: 1 }, 'one commit behind the newest templates')
  await pin.getByRole('button', { name: 'Follow the newest templates' }).click()
  await pin.getByText(/^Templates: following the newest version/).waitFor()
  t.same(problems.errors, [])
})
