// The history of an environment records its generations, pushes, dry runs and upgrades with the job
// each queued (plugins/history), against a real Git server: the push really lands (the git CLI sees
// the commit), and the history names the job that made it. The deploy key appears in no entry.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { startGitServer } from '../../harness/git-server.ts'
import { environmentBody, waitForJob } from '../../harness/jobs.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_aGlzdG9yeS1kZXBsb3kta2V5LWNhbmFyeQ'

t.test('generations, pushes and upgrades are in the history with their jobs', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const { url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: dev, body: JSON.stringify(body) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const remote = await git.createRepo('history', { 'README.md': '# shop\n' })
  const created = await post(
    '/api/environments',
    environmentBody({ name: 'shop-jobs', gitRepository: { url: remote, branch: 'main', deployKey: DEPLOY_KEY } }),
  )
  t.equal(created.status, 201)
  const env = created.body.data

  const generate = await post(`/api/environments/${env.id}/generate`, { format: 'terraform' })
  t.equal(generate.status, 202)
  t.equal((await waitForJob(url, dev, generate.body.data.id)).status, 'succeeded')

  const push = await post(`/api/environments/${env.id}/push`, {})
  const pushed = await waitForJob(url, dev, push.body.data.id)
  t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
  t.equal((await git.git('history', ['rev-parse', 'main'])).trim(), pushed.result.commit, 'the push reached the Git server')

  const dryRun = await post(`/api/environments/${env.id}/push`, { dryRun: true })
  await waitForJob(url, dev, dryRun.body.data.id)
  const upgrade = await post('/api/environments/upgrade', { ids: [env.id] })
  t.equal(upgrade.status, 202)
  const [upgradeJob] = upgrade.body.data.jobs
  await waitForJob(url, dev, upgradeJob.jobId)

  const res = await fetch(`${url}/api/environments/${env.id}/history`, { headers: dev })
  const text = await res.text()
  t.notOk(text.includes(DEPLOY_KEY), 'no deploy key in the history')
  const entries = JSON.parse(text).data as Array<{ kind: string; jobId?: string; actor: { username: string } }>
  t.same(
    entries.map((e) => [e.kind, e.jobId]),
    [
      ['upgrade', upgradeJob.jobId],
      ['push-dry-run', dryRun.body.data.id],
      ['push', push.body.data.id],
      ['generate', generate.body.data.id],
      ['create', undefined],
    ],
    'newest first, each with its job',
  )
  t.ok(
    entries.every((e) => e.actor.username === 'dev'),
    'by the caller',
  )
  // The git CLI clones what the recorded push job made.
  const { stdout } = await run('git', ['ls-remote', git.url('history')], {
    env: { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: basic(DEPLOY_KEY) },
  })
  t.match(stdout, pushed.result.commit)
})

const basic = (key: string) => `Authorization: Basic ${Buffer.from(`x-access-token:${key}`).toString('base64')}`
