// Drift checks on a schedule (plugins/plans/drift-schedule.ts), for real with a short scan interval
// and a Terraform that cannot start (each check fails fast, and is still a check: recorded in the
// history): an environment with `driftCheckHours` gets one drift job, not one per scan; once its
// hours have passed (the last queued check moved back in time) it gets the next; one without a cloud
// credential is passed over; `driftCheckHours` is validated. Then the schedule alone, on the same
// database with environments and jobs of its own making: DRIFT_SCHEDULE_CONCURRENCY holds back the
// second due check while the first runs, and the oldest due goes first.
import t from 'tap'
import { DriftSchedule } from '../../../plugins/plans/drift-schedule.ts'
import type { EnvironmentRecord } from '../../../plugins/environments/record.ts'
import type { JobRecord } from '@ies/server/jobs/queue/store'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'
import { startGitServer } from '../../harness/git-server.ts'
import { createEnvironment } from '../../harness/jobs.ts'

const DEPLOY_KEY = 'iest_ZHJpZnQtc2NoZWR1bGUtZGVwbG95LWtleS1mb3I'
const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
t.teardown(() => git.stop())
const remote = await git.createRepo('scheduled', { 'README.md': '# scheduled\n' })
const app = await startTestApp(t, {
  PUSH_ALLOWED_HOSTS: '127.0.0.1',
  TERRAFORM_BIN: '/nonexistent/terraform',
  DRIFT_SCHEDULE_SCAN_MS: '100',
})
const db = app.app.mongo.db
const api = async (method: string, route: string, body?: unknown) => {
  const headers = { ...app.auth('dev'), ...(body !== undefined && { 'content-type': 'application/json' }) }
  const res = await fetch(`${app.url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
  return { status: res.status, body: (await res.json()) as any }
}

t.test('an environment with driftCheckHours is checked once per period', async (t) => {
  const credential = await api('POST', '/cloud-credentials', {
    name: 'scheduled',
    provider: 'aws',
    credentials: {
      accessKeyId: 'AKIAIESDRIFTSCHED001',
      secretAccessKey: 'driftScheduleSecret000000000000000000000',
      region: 'eu-central-1',
    },
  })
  const base = {
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-central-1',
    domain: '',
    services: { sqs: { enabled: true } },
    terraformBackend: { bucket: 'ies-drift-schedule-state', region: 'eu-central-1' },
    gitRepository: { url: remote, branch: 'main', deployKey: DEPLOY_KEY },
    driftCheckHours: 24,
  }
  const bad = await api('POST', '/environments', { ...base, name: 'drift-bad', driftCheckHours: 0 })
  t.match(bad, { status: 400, body: { error: { details: [{ field: 'driftCheckHours' }] } } })
  const env = await createEnvironment(app, { ...base, name: 'drift-scheduled', cloudCredentialId: credential.body.data.id })
  t.equal(env.driftCheckHours, 24)
  const without = await createEnvironment(app, { ...base, name: 'drift-no-credential' })

  const checks = async (id: string) =>
    ((await api('GET', `/environments/${id}/history`)).body.data as any[]).filter((e) => e.kind === 'drift')
  const first = await eventually(
    () => checks(env.id),
    (c) => c.length > 0,
    { timeoutMs: 60_000, intervalMs: 100 },
  )
  t.match(first, [{ kind: 'drift', error: { code: 'TERRAFORM_UNAVAILABLE' } }], 'a scheduled drift job ran (and failed: no Terraform)')
  const scans = async () =>
    (await db.collection<{ _id: string; count: number }>('driftScheduleScans').findOne({ _id: 'scans' }))?.count ?? 0
  const seen = await scans()
  t.ok((await eventually(scans, (n) => n >= seen + 5, { timeoutMs: 30_000 })) >= seen + 5, 'five more scans')
  t.equal((await checks(env.id)).length, 1, 'not queued again within its period, failed or not')
  t.same(await checks(without.id), [], 'an environment without a credential is passed over')

  await db
    .collection<{ _id: string; queuedAt: Date }>('driftSchedule')
    .updateOne({ _id: env.id }, { $set: { queuedAt: new Date(Date.now() - 25 * 3600_000) } })
  const second = await eventually(
    () => checks(env.id),
    (c) => c.length > 1,
    { timeoutMs: 60_000, intervalMs: 100 },
  )
  t.equal(second.length, 2, 'once its hours have passed: the next check')
  const off = await api('PUT', `/environments/${env.id}`, { driftCheckHours: null })
  t.equal(off.status, 200, JSON.stringify(off.body))
  t.notOk('driftCheckHours' in off.body.data, 'null turns the schedule off')
})

t.test('DRIFT_SCHEDULE_CONCURRENCY: a due check waits while the limit is taken', async (t) => {
  const status = new Map<string, JobRecord['status']>()
  const queued: string[] = []
  const env = (id: string) => ({ _id: id, userId: 'u' }) as unknown as EnvironmentRecord
  const schedule = new DriftSchedule({
    db,
    config: { scanEveryMs: 1000, concurrency: 1 },
    log: app.app.log,
    scheduled: async () => [
      { id: 'limit-newer', userId: 'u', everyHours: 1 },
      { id: 'limit-older', userId: 'u', everyHours: 1 },
    ],
    environment: async (id) => env(id),
    checkable: async () => true,
    lastDrift: async (id) => ({ jobId: 'j', checkedAt: new Date(id === 'limit-older' ? 0 : 1000).toISOString(), drifted: [] }),
    job: async (id) => ({ status: status.get(id) ?? 'succeeded' }) as JobRecord,
    enqueue: async (e) => {
      queued.push(e._id)
      status.set(`job-${e._id}`, 'running')
      return `job-${e._id}`
    },
  })
  const now = Date.now()
  await schedule.scan(now)
  t.same(queued, ['limit-older'], 'one at a time, the oldest due first')
  await schedule.scan(now + 1)
  t.same(queued, ['limit-older'], 'the other waits while the first runs')
  status.set('job-limit-older', 'succeeded')
  await schedule.scan(now + 2)
  t.same(queued, ['limit-older', 'limit-newer'], 'then it is queued')
})
