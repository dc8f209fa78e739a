// A scheduled drift check of a team's environment is a job owned by the team (`team:<id>`, queued as
// plugins/plans/drift-schedule.ts queues it): every member who may read the environment opens it
// (`GET /api/jobs/:id`, also waiting, and among `GET /api/jobs?ids=`) as they see it in the
// environment's history and job list; a non-member gets 404 and leaves it out of a batch, and a
// member still does not open a job of another user's own environment.
import t from 'tap'
import { PUSH_DEFAULTS } from '@ies/api/schemas/push'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'
import { caller } from '../approvals/fixtures.ts'

const base = { globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1' }

t.test("a team's scheduled drift check is open to its members", async (t) => {
  const ctx = await startTestApp(t)
  const call = caller(ctx)
  t.equal((await call('admin', 'POST', '/api/teams', { name: 'platform' })).status, 201)
  for (const [name, role] of [
    ['dev', 'editor'],
    ['carol', 'viewer'],
  ]) {
    t.equal((await call('admin', 'PUT', `/api/teams/platform/members/user/${name}`, { role })).status, 200)
  }
  const env = (await call('dev', 'POST', '/api/environments', { ...base, name: 'shop-drift', team: 'platform' })).body.data
  const stored = await ctx.db.client.db().collection<{ _id: string; userId: string }>('environments').findOne({ _id: env.id })
  t.match(stored!.userId, /^team:/, 'the environment is the team’s')
  // What the schedule queues: a drift job under the environment's owner, the team.
  const params = { format: PUSH_DEFAULTS.format, options: { ...PUSH_DEFAULTS.options }, dryRun: true }
  const job = await ctx.app.jobs.enqueue('drift', stored!.userId, env.id, params)
  // A personal environment of dev, and its job: not the team's.
  const own = (await call('dev', 'POST', '/api/environments', { ...base, name: 'dev-own' })).body.data
  const ownJob = (await call('dev', 'POST', `/api/environments/${own.id}/generate`, { format: 'terraform' })).body.data

  for (const who of ['dev', 'carol'] as const) {
    const seen = await call(who, 'GET', `/api/jobs/${job._id}`)
    t.equal(seen.status, 200, `${who} (a member) opens the team's drift job`)
    t.match(seen.body.data, { id: job._id, type: 'drift', environmentId: env.id })
    const batch = await call(who, 'GET', `/api/jobs?ids=${job._id},${ownJob.id}`)
    t.same(
      batch.body.data.map((j: { id: string }) => j.id),
      who === 'dev' ? [job._id, ownJob.id] : [job._id],
      `${who}: the team's job among a batch, another user's own job not`,
    )
  }
  const finished = await eventually(
    () => call('carol', 'GET', `/api/jobs/${job._id}?wait=true`),
    (r) => r.status !== 200 || !['queued', 'running'].includes(r.body.data.status),
  )
  t.equal(finished.status, 200, 'a member waits for it')
  t.equal((await call('carol', 'GET', `/api/environments/${env.id}/jobs`)).body.data[0]?.id, job._id, 'as the job list shows it')

  t.equal((await call('eve', 'GET', `/api/jobs/${job._id}`)).status, 404, 'a non-member does not open it')
  t.equal((await call('eve', 'GET', `/api/jobs/${job._id}?wait=true`)).status, 404)
  t.same((await call('eve', 'GET', `/api/jobs?ids=${job._id}`)).body.data, [], 'nor finds it in a batch')
  t.equal((await call('carol', 'GET', `/api/jobs/${ownJob.id}`)).status, 404, "a member does not open another member's own job")
})
