// A push of an environment whose stored values its templates refuse (stranded: an option no longer
// offered, no migration for it) is refused before anything is written, against a real Git server:
// 422 MIGRATION_FAILED naming the field, for a push and a dry run alike, the branch head unchanged;
// once the value is changed the same push goes through. A pinned environment is judged by the
// catalog of its own templates version: an option the newest templates dropped still pushes there.
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { eventually } from '../../../harness/eventually.ts'
import { checkout, pushedAndPinned, startPushServer } from '../../../harness/push-server.ts'
import { environmentBody, waitForJob } from '../../../harness/jobs.ts'
import { strandEnvironment } from '../../../harness/stranded.ts'

const DEPLOY_KEY = 'iest_c3RyYW5kZWQtcHVzaC1kZXBsb3kta2V5LWZvci10ZXN0cw'

t.test('a stranded environment is not pushed', async (t) => {
  const { git, app, url, dev, api } = await startPushServer(t, DEPLOY_KEY)
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

t.test('a pinned environment is judged against its own templates version', async (t) => {
  const server = await startPushServer(t, DEPLOY_KEY, async (git) => {
    await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
    return { TEMPLATES_REPO: git.url('templates', true), CATALOG_CACHE_TTL_MS: '0' }
  })
  const { git, url, dev, api } = server
  const remote = await git.createRepo('pinned', { 'README.md': '# shop\n' })
  const head = async () => (await git.git('pinned', ['rev-parse', 'main'])).trim()
  const services = { vpc: { enabled: true }, eks: { enabled: true, nodeInstanceType: 'c6i.xlarge' } }
  const { id, templatesCommit: v0 } = await pushedAndPinned(server, DEPLOY_KEY, remote, environmentBody({ name: 'shop-pinned', services }))

  // The template author drops the option the environment uses.
  const templates = await checkout(t, git, DEPLOY_KEY, 'templates')
  const tfvars = 'terraform/terraform.tfvars'
  const option = ',{"value":"c6i.xlarge","label":"c6i.xlarge"}'
  t.ok((await templates.read(tfvars)).includes(option), 'the templates offer c6i.xlarge')
  await templates.edit(tfvars, (text) => text.replace(option, ''))
  await templates.commitAndPush('templates: c6i.xlarge is no longer offered')

  const stranded = await eventually(
    async () => (await api('GET', `/environments/${id}`)).body.data,
    (env) => (env.problems ?? []).length > 0,
    { timeoutMs: 30_000, intervalMs: 200 },
  )
  t.match(stranded.problems, [{ field: 'services.eks.nodeInstanceType' }], 'the newest catalog refuses the value')
  const before = await head()
  const again = await api('POST', `/environments/${id}/push`, { dryRun: true })
  t.equal(again.status, 202, `pinned to ${v0.slice(0, 8)}, whose catalog offers it, the push goes on: ${JSON.stringify(again.body)}`)
  t.equal((await waitForJob(url, dev, again.body.data.id)).status, 'succeeded')

  t.equal((await api('PUT', `/environments/${id}`, { templatesPin: null })).status, 200)
  const following = await api('POST', `/environments/${id}/push`, {})
  t.equal(following.status, 422, 'following the newest templates, it is refused')
  t.match(following.body.error, { code: 'MIGRATION_FAILED', details: { problems: [{ field: 'services.eks.nodeInstanceType' }] } })
  t.equal(await head(), before, 'the branch head is unchanged')
})
