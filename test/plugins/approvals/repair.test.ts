// A decision whose server died before carrying it out does not leave the push stuck: with two servers
// on one database, the approvals sweep (at start and on its timer) queues a push marked approved but
// never queued, ends a push rejected but never ended and a request that has expired, each exactly
// once (one history entry, one takeover claim), queues a push marked approved whose decision claim
// is gone, and leaves alone a decision younger than a lock
// lifetime (its decider is still at work).
import t from 'tap'
import { buildApp } from '@ies/server'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'
import { approvingTeam } from './fixtures.ts'

t.test('the approvals sweep repairs decisions not carried out, once across servers', async (t) => {
  const ctx = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const { call, git, environment, asOperator } = await approvingTeam(t, ctx)
  // One environment per case: two servers appending to one environment's history at the same moment
  // is not what this test is about.
  const cases = ['approved', 'unclaimed', 'rejected', 'expired', 'young'] as const
  const envs = new Map<string, { id: string }>()
  for (const name of cases) envs.set(name, await environment(`shop-${name}`, name))
  await asOperator()
  t.equal((await call('admin', 'PUT', '/api/teams/platform/settings', { requireProductionApproval: true })).status, 200)
  const before = (await git.git('customer', ['rev-parse', 'main'])).trim()
  const { store } = ctx.app.jobs
  const hold = async (name: (typeof cases)[number]) => {
    const held = await call('dev', 'POST', `/api/environments/${envs.get(name)!.id}/push`, {})
    t.equal(held.body.data.status, 'awaiting-approval')
    return held.body.data.id as string
  }
  const carol = { userId: 'carol-id', username: 'carol' }
  const lockLifetime = ctx.config.jobs.lockLifetimeMs
  const longAgo = new Date(Date.now() - 2 * lockLifetime)

  // Approved and marked queued, then the server died before queueing it.
  const approved = await hold('approved')
  await store.claims.insertOne({ _id: `${approved}:decision`, jobId: approved, at: longAgo, decision: 'approved', decidedBy: carol })
  const record = await store.byId(approved)
  await store.approved(approved, { ...record!.approval!, decision: 'approved', decidedBy: carol, decidedAt: longAgo })
  // Marked approved and queued long ago, and its decision claim since gone with the retention sweep.
  const unclaimed = await hold('unclaimed')
  await store.approved(unclaimed, {
    ...(await store.byId(unclaimed))!.approval!,
    decision: 'approved',
    decidedBy: carol,
    decidedAt: longAgo,
  })
  // Rejected, then the server died before ending it.
  const rejected = await hold('rejected')
  await store.claims.insertOne({
    _id: `${rejected}:decision`,
    jobId: rejected,
    at: longAgo,
    decision: 'rejected',
    decidedBy: carol,
    reason: 'freeze week',
  })
  // Expired while no server ran the sweep.
  const expired = await hold('expired')
  await store.collection.updateOne({ _id: expired }, { $set: { 'approval.expiresAt': new Date(Date.now() - 1000) } })
  // Decided a moment ago: its decider is carrying it out.
  const young = await hold('young')
  await store.claims.insertOne({ _id: `${young}:decision`, jobId: young, at: new Date(), decision: 'approved', decidedBy: carol })
  t.equal((await call('dev', 'GET', `/api/jobs/${approved}`)).body.data.status, 'queued', 'marked approved, never queued')

  // A second server starts on the same database (its start sweeps), and both sweep at once.
  const second = await buildApp({ config: ctx.config, logger: false })
  t.teardown(() => second.close())
  await second.listen({ host: '127.0.0.1', port: 0 })
  await Promise.all([ctx.app.approvals.sweep(ctx.app.log), second.approvals.sweep(second.log), second.approvals.sweep(second.log)])

  // A real push: seconds, more on a loaded machine.
  const PUSH_WAIT = { timeoutMs: 60_000, intervalMs: 100 }
  const job = async (id: string) => (await call('dev', 'GET', `/api/jobs/${id}`)).body.data
  const pushed = await eventually(
    () => job(approved),
    (j) => j.status === 'succeeded' || j.status === 'failed',
    PUSH_WAIT,
  )
  t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
  t.not(pushed.result.commit, before)
  t.equal((await git.git('customer', ['rev-parse', 'approved'])).trim(), pushed.result.commit, 'the approved push landed')
  const alsoPushed = await eventually(
    () => job(unclaimed),
    (j) => j.status === 'succeeded' || j.status === 'failed',
    PUSH_WAIT,
  )
  t.equal(alsoPushed.status, 'succeeded', 'an approved push whose claim is gone is queued too')
  t.match(await job(rejected), { status: 'failed', error: { code: 'APPROVAL_REJECTED', message: /carol.*freeze week/ } })
  t.match(await job(expired), { status: 'failed', error: { code: 'APPROVAL_EXPIRED' }, approval: { decision: 'expired' } })
  t.equal((await job(young)).status, 'awaiting-approval', 'a young decision is left to its decider')

  // Every repair has ended once the waiting collection holds only the young one (its last step; the
  // second server's start sweep may still be at work when the sweeps above return).
  const waiting = await eventually(
    () => store.awaitingApproval(),
    (entries) => entries.length === 1,
  )
  t.same(
    waiting.map((e) => e._id),
    [young],
    'only the push still waiting is in the waiting collection',
  )
  const kinds = async (name: (typeof cases)[number], id: string) => {
    const history = (await call('dev', 'GET', `/api/environments/${envs.get(name)!.id}/history?limit=100`)).body.data as any[]
    return history.filter((e) => e.jobId === id && e.kind.startsWith('approval-')).map((e) => e.kind)
  }
  t.same((await kinds('approved', approved)).sort(), ['approval-approved', 'approval-requested'], 'one approval entry')
  t.same((await kinds('rejected', rejected)).sort(), ['approval-rejected', 'approval-requested'], 'one rejection entry')
  t.same((await kinds('expired', expired)).sort(), ['approval-expired', 'approval-requested'], 'one expiry entry')
  for (const id of [approved, rejected]) {
    const takeovers = await store.claims.find({ jobId: id }).toArray()
    t.equal(takeovers.filter((c) => c._id.includes(':settle:')).length, 1, 'taken over by one server')
  }
  t.same(
    (await call('carol', 'GET', '/api/approvals')).body.data.map((a: any) => a.jobId),
    [young],
  )
})
