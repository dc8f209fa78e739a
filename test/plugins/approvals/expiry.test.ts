// An approval request nobody answers ends the push as APPROVAL_EXPIRED after APPROVAL_EXPIRY_MS (here
// the shortest, 1 s): the job fails with that code, nothing is pushed, it is no longer listed or
// approvable, and the history records the expiry.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'
import { approvingTeam } from './fixtures.ts'

t.test('an unanswered approval request expires and ends the job', async (t) => {
  const ctx = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', APPROVAL_EXPIRY_MS: '1000' })
  const { call, git, environment, asOperator } = await approvingTeam(t, ctx)
  const prod = await environment('shop-prod', 'main')
  await asOperator()
  t.equal((await call('admin', 'PUT', '/api/teams/platform/settings', { requireProductionApproval: true })).status, 200)
  const before = (await git.git('customer', ['rev-parse', 'main'])).trim()

  const held = await call('dev', 'POST', `/api/environments/${prod.id}/push`, {})
  t.equal(held.body.data.status, 'awaiting-approval')
  const id = held.body.data.id
  const ended = await eventually(
    async () => (await call('dev', 'GET', `/api/jobs/${id}`)).body.data,
    (job) => job.status === 'failed',
  )
  t.match(ended, {
    status: 'failed',
    error: { code: 'APPROVAL_EXPIRED', message: /APPROVAL_EXPIRY_MS/ },
    approval: { decision: 'expired' },
  })
  t.equal((await call('carol', 'POST', `/api/approvals/${id}/approve`)).status, 409, 'an expired request is not approved')
  t.same((await call('carol', 'GET', '/api/approvals')).body.data, [])
  t.equal((await git.git('customer', ['rev-parse', 'main'])).trim(), before, 'nothing pushed')
  // The expiry is recorded in the history once the job has ended (the job is seen failed first).
  const history = await eventually(
    async () => (await call('dev', 'GET', `/api/environments/${prod.id}/history`)).body.data as any[],
    (entries) => entries.some((e) => e.jobId === id && e.kind === 'approval-expired'),
  )
  t.ok(
    history.some((e) => e.jobId === id && e.kind === 'approval-expired'),
    'the expiry is in the history',
  )
})
