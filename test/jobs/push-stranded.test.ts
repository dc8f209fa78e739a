// A push of an environment whose stored values its templates refuse (stranded: an option no longer
// offered, no migration for it) is refused before anything is written, against a real Git server:
// 422 MIGRATION_FAILED naming the field, for a push and a dry run alike, the branch head unchanged;
// once the value is changed the same push goes through.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { startGitServer } from '../harness/git-server.ts'
import { environmentBody, waitForJob } from './fixtures.ts'
import { strandEnvironment } from '../harness/stranded.ts'

const DEPLOY_KEY = 'iest_c3RyYW5kZWQtcHVzaC1kZXBsb3kta2V5LWZvci10ZXN0cw'

t.test('a stranded environment is not pushed', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const { app, url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}/api${route}`, { method, headers: dev, ...(body !== undefined && { body: JSON.stringify(body) }) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const remote = await git.createRepo('stranded', { 'README.md': '# shop\n' })
  const head = async () => (await git.git('stranded', ['rev-parse', 'main'])).trim()

  const created = await api('POST', '/environments', {
    ...environmentBody({ name: 'shop-stranded', services: { vpc: { enabled: true }, eks: { enabled: true } } }),
    gitRepository: { url: remote, branch: 'main', deployKey: DEPLOY_KEY },
  })
  t.equal(created.status, 201, JSON.stringify(created.body))
  const id = created.body.data.id as string
  // An instance type an older catalog offered; no migration moves it.
  await strandEnvironment(app, id, (services) => ({ ...services, eks: { ...services.eks, nodeInstanceType: 'm5.large' } }))
  const shown = await api('GET', `/environments/${id}`)
  t.match(shown.body.data.problems, [{ field: 'services.eks.nodeInstanceType' }], 'GET /:id shows it stranded')

  const before = await head()
  for (const body of [{}, { dryRun: true }]) {
    const refused = await api('POST', `/environments/${id}/push`, body)
    t.equal(refused.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(refused.body)}`)
    t.equal(refused.body.error.code, 'MIGRATION_FAILED')
    t.match(refused.body.error.message, /services\.eks\.nodeInstanceType/, 'the message names the field')
    t.match(refused.body.error.details, { problems: [{ field: 'services.eks.nodeInstanceType', message: /must be one of/ }] })
  }
  t.equal(await head(), before, 'the branch head is unchanged')
  const jobs = await api('GET', `/environments/${id}/jobs`)
  t.equal(jobs.status, 200, JSON.stringify(jobs.body))
  t.same(
    jobs.body.data.filter((j: any) => j.type === 'push'),
    [],
    'no push job was queued',
  )

  const fixed = await api('PUT', `/environments/${id}`, { services: { eks: { nodeInstanceType: 'm6i.large' } } })
  t.equal(fixed.status, 200, JSON.stringify(fixed.body))
  const queued = await api('POST', `/environments/${id}/push`, {})
  t.equal(queued.status, 202, JSON.stringify(queued.body))
  const pushed = await waitForJob(url, dev, queued.body.data.id)
  t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
  t.not(await head(), before, 'with the value changed the push writes')
})
