// Plans in bulk upgrades (plugins/upgrades): `plan: true` plans each preview (dry run) and the rollout
// shows each environment's plan summary (or why there is none); `confirmDestroy` by environment id or
// name reaches that environment's push (400 for a key naming no environment pushed); a real rollout's
// preview whose plan replaces or destroys data unconfirmed is refused with the push guard's code
// before its wave pushes (judge, on preview results shaped as the plan job writes them).
// The plans themselves (Terraform against moto) are tested in plan.test.ts.
import t from 'tap'
import { judge, type RolloutEnvironment } from '../../../plugins/upgrades/rollouts.ts'
import type { JobRecord } from '@ies/server/jobs/queue/store'
import { startTestApp } from '../../harness/app.ts'
import { startGitServer } from '../../harness/git-server.ts'
import { environmentBody, waitForJob } from '../../harness/jobs.ts'
import { jsonApi, rolloutEnded } from '../../harness/push-server.ts'

const DEPLOY_KEY = 'iest_dXBncmFkZS1wbGFucy1kZXBsb3kta2V5LWZvcg'
const DB = 'module.rds.aws_db_instance.this'

t.test('a planned preview: its summary, and data at risk refused unless confirmed', async (t) => {
  const plan = { summary: { add: 1, change: 0, destroy: 1, replace: 1, noOp: 3 }, dataAtRisk: [DB], resources: [] }
  const job = (result: unknown) =>
    ({ status: 'succeeded', result: { dryRun: true, changes: [], conflicts: [], ...(result as object) } }) as unknown as JobRecord
  const env = (extra: Partial<RolloutEnvironment> = {}): RolloutEnvironment => ({ id: 'e1', name: 'shop-dev', push: {} as never, ...extra })

  const refused = env()
  judge(refused, job({ plan }), { guard: true })
  t.match(refused, { outcome: 'failed', reason: /^PUSH_WOULD_DESTROY_DATA: .*module\.rds\.aws_db_instance\.this/, dataAtRisk: [DB] })
  t.equal(refused.plan, '1 to add, 0 to change, 1 to destroy (1 replaced)')

  const confirmed = env({ confirmDestroy: [DB] })
  judge(confirmed, job({ plan }), { guard: true })
  t.equal(confirmed.outcome, 'previewed', 'confirmed exactly: the wave may push')

  const other = env({ confirmDestroy: ['module.sqs.aws_sqs_queue.this'] })
  judge(other, job({ plan }), { guard: true })
  t.equal(other.outcome, 'failed', 'another address confirmed is no confirmation')

  const dryRun = env()
  judge(dryRun, job({ plan }), { guard: false })
  t.match(dryRun, { outcome: 'previewed', dataAtRisk: [DB] }, 'a dry run rollout only shows it')

  const unavailable = env()
  judge(unavailable, job({ plan: { unavailable: 'no state backend' } }), { guard: true })
  t.match(unavailable, { outcome: 'previewed', plan: 'no plan: no state backend' })
  t.notOk('dataAtRisk' in unavailable)
})

t.test('plan and confirmDestroy through POST /environments/upgrade', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const { app, url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const dev = () => ({ ...auth('dev'), 'content-type': 'application/json' })
  const api = jsonApi(url, dev())
  await git.createRepo('up-dev', {})
  const created = await api('POST', '/environments', {
    ...environmentBody({ name: 'up-dev' }),
    gitRepository: { url: git.url('up-dev'), branch: 'main', deployKey: DEPLOY_KEY },
  })
  t.equal(created.status, 201, JSON.stringify(created.body))
  const id = created.body.data.id as string
  const first = await api('POST', `/environments/${id}/push`, {})
  t.equal((await waitForJob(url, dev(), first.body.data.id, 60_000)).status, 'succeeded')
  const rolloutDone = (rolloutId: string) => rolloutEnded(api, rolloutId)

  const dry = await api('POST', '/environments/upgrade', { ids: [id], waves: ['*'], dryRun: true, plan: true })
  t.equal(dry.status, 202, JSON.stringify(dry.body))
  const previewed = await rolloutDone(dry.body.data.rolloutId)
  t.match(previewed, { status: 'succeeded', plan: true, waves: [{ status: 'previewed', environments: [{ outcome: 'previewed' }] }] })
  const [e] = previewed.waves[0].environments
  t.match(e.plan, /^no plan: .*state backend/, 'without a state backend: why there is no plan')
  const preview = await waitForJob(url, dev(), e.previewJobId)
  t.match(preview.result.plan, { unavailable: /state backend/ }, "the preview job's result carries it")

  const unknown = await api('POST', '/environments/upgrade', { ids: [id], confirmDestroy: { 'no-such-env': [DB] } })
  t.match(unknown, { status: 400, body: { error: { code: 'VALIDATION_ERROR', details: [{ field: 'confirmDestroy.no-such-env' }] } } })

  const real = await api('POST', '/environments/upgrade', { ids: [id], confirmDestroy: { 'up-dev': [DB] } })
  t.equal(real.status, 202, JSON.stringify(real.body))
  const done = await rolloutDone(real.body.data.rolloutId)
  t.equal(done.status, 'succeeded', JSON.stringify(done))
  const pushed = await app.jobs.store.byId(done.waves[0].environments[0].jobId)
  t.same((pushed?.params as { confirmDestroy?: string[] }).confirmDestroy, [DB], "the confirmation reaches the environment's push")
  t.notOk('confirmDestroy' in done.waves[0].environments[0], 'the rollout view does not repeat it')
})
