// The README's pipeline example on a team environment created in the web UI: an admin makes team
// `platform` on the Teams screen and adds the pipeline's client `ies-cli` there (and `dev` through the
// API), both editors; `dev` creates `shop-prod` for
// the team in the wizard (Chromium); the pipeline (the real `ies` with client credentials) runs
// `ies apply -f envs/` and `ies push shop-prod`, which update and push that same environment (no
// second `shop-prod`), and the push lands on a real Git server (checked with the git CLI).
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { startGitServer } from '../../harness/git-server.ts'
import { getUserToken } from '../../harness/identity.ts'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer, tempDir } from '../../cli/helpers.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from '../../e2e/browser.ts'

const DEPLOY_KEY = 'iest_team_pipeline_deploy_key_0123456789'

t.test('a team environment made in the UI, applied and pushed by the pipeline', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('shop', { 'README.md': '# shop\n' })
  const server = await startCliServer(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const tokenOf = async (username: 'dev' | 'admin') => (await getUserToken({ authUrl: server.idp.authUrl, username })).access_token

  const admin = await tokenOf('admin')
  const call = (method: string, url: string, body?: unknown) =>
    fetch(`${server.url}/api${url}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
  // The admin makes the team and adds the pipeline's client on the Teams screen; dev through the API.
  const browser = await launchBrowser(t)
  const adminPage = await newPage(await signedInContext(browser, admin))
  await adminPage.page.goto(`${server.url}/#/teams`)
  await adminPage.page.getByLabel('New team name').fill('platform')
  await adminPage.page.getByRole('button', { name: 'Create team' }).click()
  await adminPage.page.getByRole('button', { name: 'Members' }).click()
  const adding = adminPage.page.getByRole('form', { name: 'Add a member to platform' })
  await adding.getByLabel('Kind').selectOption({ label: 'Service account (client id)' })
  await adding.getByLabel('Name').fill('ies-cli')
  await adding.getByLabel('Role').selectOption({ label: 'editor: also creates, changes, deletes' })
  await adding.getByRole('button', { name: 'Add member' }).click()
  await adminPage.page.locator('[data-member="ies-cli"]').waitFor()
  await screenshot(adminPage.page, 'teams-admin')
  t.same(adminPage.problems.errors, [])
  t.equal((await call('PUT', '/teams/platform/members/user/dev', { role: 'editor' })).status, 200)
  const members = (await (await call('GET', '/teams/platform/members')).json()) as { data: unknown[] }
  t.same(
    members.data,
    [
      { kind: 'client', name: 'ies-cli', role: 'editor' },
      { kind: 'user', name: 'dev', role: 'editor' },
    ],
    'the screen added the client as an editor',
  )

  // dev creates the team's environment in the wizard.
  const { page, problems } = await newPage(await signedInContext(browser, await tokenOf('dev')))
  await page.goto(`${server.url}/#/environments/new`)
  await page.getByLabel('Team').selectOption({ label: 'platform' })
  await page.getByLabel('Environment name').fill('shop-prod')
  await page.getByLabel('Global prefix').fill('acme')
  await page.getByLabel('Region').fill('eu-central-1')
  await page.getByRole('button', { name: 'Review', exact: true }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.getByTestId('env-access').waitFor()
  t.match(await page.getByTestId('env-access').textContent(), /Team platform · your role: editor/)
  await screenshot(page, 'team-environment-detail')
  await page.goto(`${server.url}/#/environments`)
  await page.getByTestId('env-team').first().waitFor()
  t.equal(await page.getByTestId('env-team').first().textContent(), 'platform', 'the list shows the team')
  t.same(problems.errors, [])

  // The pipeline: the README's commands with the client's credentials.
  const ies = iesRunner(server, PIPELINE_ENV)
  const envs = path.join(tempDir(t, 'ies-team-pipeline-'), 'envs')
  mkdirSync(envs)
  writeFileSync(
    path.join(envs, 'shop-prod.yaml'),
    `name: shop-prod
team: platform
globalPrefix: acme
provider: aws
region: eu-central-1
services:
  vpc:
    enabled: true
gitRepository:
  url: ${git.url('shop')}
  branch: main
`,
  )
  const dry = await ies.run(['apply', '-f', envs, '--dry-run', '--json'])
  t.equal(dry.code, 0, dry.stderr)
  t.match(parseJson(dry), { created: 0, updated: 1 }, 'the UI-made environment is found, not made again')
  const applied = await ies.run(['apply', '-f', envs, '--set-env', 'gitRepository.deployKey=IES_DEPLOY_KEY', '--json'], {
    IES_DEPLOY_KEY: DEPLOY_KEY,
  })
  t.equal(applied.code, 0, applied.stderr)
  t.match(parseJson(applied), { created: 0, updated: 1 })

  const pushed = await ies.run(['push', 'shop-prod', '--json'])
  t.equal(pushed.code, 0, pushed.stderr)
  const job = parseJson(pushed)
  t.match(job, { type: 'push', status: 'succeeded', result: { branch: 'main', changed: true } })
  t.equal((await git.git('shop', ['rev-parse', 'main'])).trim(), job.result.commit, 'the branch holds the pushed commit')

  const listed = parseJson(await ies.run(['env', 'list', '--json']))
  t.match(listed, [{ name: 'shop-prod', team: 'platform', role: 'editor' }])
  t.equal(listed.length, 1, 'one shop-prod, the team’s')
  t.notOk(ies.printed.join('').includes(DEPLOY_KEY), 'the deploy key is never printed')
})
