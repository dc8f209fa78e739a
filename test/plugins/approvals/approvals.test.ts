// Approvals of production pushes end to end on a real server, database and Git server: a team that
// requires them has a production push held as `awaiting-approval` (a dry run and a staging push are
// not); the requester, a viewer and the pipeline's own request cannot be approved by themselves, an
// operator can (the push then lands on the branch); a rejected push writes nothing; the history
// records request, approval, rejection and who.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { waitForJob } from '../../harness/jobs.ts'
import { approvingTeam } from './fixtures.ts'

t.test('approvals of production pushes', async (t) => {
  const ctx = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEAMS_GROUPS_CLAIM: 'groups' })
  const { call, git, environment, asOperator } = await approvingTeam(t, ctx)
  const prod = await environment('shop-prod', 'main')
  const staging = await environment('shop-staging', 'staging', 'staging')
  await asOperator()
  const tip = async (branch: string) => (await git.git('customer', ['rev-parse', branch]).catch(() => '')).trim()

  // Off until the team turns it on; only an admin sets it.
  t.equal((await call('dev', 'PUT', '/api/teams/platform/settings', { requireProductionApproval: true })).status, 403)
  t.equal((await call('admin', 'PUT', '/api/teams/platform/settings', { requireProductionApproval: 'yes' })).status, 400)
  const set = await call('admin', 'PUT', '/api/teams/platform/settings', { requireProductionApproval: true })
  t.equal(set.status, 200)
  t.equal(set.body.data.requireProductionApproval, true)

  const push = (who: 'dev' | 'pipeline', envId: string, body: unknown = {}) => call(who, 'POST', `/api/environments/${envId}/push`, body)
  const job = async (id: string) => (await call('carol', 'GET', `/api/jobs/${id}`)).body.data

  await t.test('a staging push and a dry run are not held', async (t) => {
    const staged = await push('dev', staging.id)
    t.equal(staged.status, 202)
    t.equal(staged.body.data.status, 'queued')
    const dry = await push('dev', prod.id, { dryRun: true })
    t.equal(dry.body.data.status, 'queued')
    const headers = { authorization: `Bearer ${ctx.tokenFor('dev')}` }
    t.equal((await waitForJob(ctx.url, headers, staged.body.data.id)).status, 'succeeded')
  })

  await t.test('the requester and a viewer cannot approve; an operator can, and the push lands', async (t) => {
    const before = await tip('main')
    const held = await push('dev', prod.id)
    t.equal(held.status, 202)
    t.match(held.body.data, { status: 'awaiting-approval', approval: { requestedBy: { username: 'dev' } } })
    const id = held.body.data.id

    const listed = await call('carol', 'GET', '/api/approvals')
    t.match(listed.body.data, [{ jobId: id, environment: { name: 'shop-prod' }, team: { name: 'platform' }, canDecide: true }])
    t.equal((await call('dev', 'GET', '/api/approvals')).body.data[0].canDecide, false, 'not the requester’s to decide')
    t.equal((await call('eve', 'GET', '/api/approvals')).body.data[0].canDecide, false, 'not a viewer’s')
    t.same((await call('other', 'GET', '/api/approvals')).body.data, [], 'not shown outside the team')

    const own = await call('dev', 'POST', `/api/approvals/${id}/approve`)
    t.equal(own.status, 403, 'the requester cannot approve')
    t.match(own.body.error, { code: 'FORBIDDEN', message: /Another member/ })
    t.equal((await call('eve', 'POST', `/api/approvals/${id}/approve`)).status, 403, 'a viewer cannot approve')
    t.equal((await call('other', 'POST', `/api/approvals/${id}/approve`)).status, 404, 'a stranger does not see it')
    t.equal((await job(id)).status, 'awaiting-approval', 'still waiting')
    t.equal(await tip('main'), before, 'nothing pushed while waiting')

    const approved = await call('carol', 'POST', `/api/approvals/${id}/approve`)
    t.equal(approved.status, 200)
    t.match(approved.body.data.approval, { decision: 'approved', decidedBy: { username: 'carol' } })
    t.equal((await call('carol', 'POST', `/api/approvals/${id}/reject`, {})).status, 409, 'decided once')
    const done = await waitForJob(ctx.url, { authorization: `Bearer ${ctx.tokenFor('dev')}` }, id)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.equal(await tip('main'), done.result.commit, 'the approved push is on the branch')

    const history = await call('dev', 'GET', `/api/environments/${prod.id}/history`)
    const kinds = history.body.data.filter((e: any) => e.jobId === id).map((e: any) => [e.kind, e.actor.username])
    t.same(kinds.sort(), [
      ['approval-approved', 'carol'],
      ['approval-requested', 'dev'],
      ['push', 'dev'],
    ])
  })

  await t.test('a rejected push writes nothing', async (t) => {
    const before = await tip('main')
    const held = await push('dev', prod.id)
    const id = held.body.data.id
    const rejected = await call('carol', 'POST', `/api/approvals/${id}/reject`, { reason: 'freeze week' })
    t.equal(rejected.status, 200)
    t.match(rejected.body.data, { status: 'failed', error: { code: 'APPROVAL_REJECTED', message: /carol.*freeze week/ } })
    t.equal((await call('carol', 'POST', `/api/approvals/${id}/approve`)).status, 409, 'a rejected push is not approved after')
    t.same((await call('carol', 'GET', '/api/approvals')).body.data, [], 'no longer listed')
    t.equal(await tip('main'), before, 'the branch is as it was')
    const history = await call('dev', 'GET', `/api/environments/${prod.id}/history`)
    t.ok(
      history.body.data.some((e: any) => e.jobId === id && e.kind === 'approval-rejected' && e.actor.username === 'carol'),
      'the rejection and who in the history',
    )
  })

  await t.test('a pipeline cannot approve its own request', async (t) => {
    const held = await push('pipeline', prod.id)
    t.equal(held.body.data.status, 'awaiting-approval')
    const id = held.body.data.id
    t.equal((await call('pipeline', 'POST', `/api/approvals/${id}/approve`)).status, 403)
    t.equal((await call('dev', 'POST', `/api/approvals/${id}/approve`)).status, 200, 'another operator can')
  })

  await t.test('the bulk upgrade’s push of a production environment waits too', async (t) => {
    const before = await tip('main')
    const upgrade = await call('dev', 'POST', '/api/environments/upgrade', { ids: [prod.id, staging.id] })
    t.equal(upgrade.status, 202, JSON.stringify(upgrade.body))
    const jobIds = new Map<string, string>(upgrade.body.data.jobs.map((j: any) => [j.environmentId, j.jobId]))
    const prodJob = jobIds.get(prod.id)!
    t.equal((await job(prodJob)).status, 'awaiting-approval')
    t.match((await call('carol', 'GET', '/api/approvals')).body.data, [{ jobId: prodJob, requestedBy: { username: 'dev' } }])
    const headers = { authorization: `Bearer ${ctx.tokenFor('dev')}` }
    t.equal((await waitForJob(ctx.url, headers, jobIds.get(staging.id)!)).status, 'succeeded', 'the staging push is not held')
    t.equal((await job(prodJob)).status, 'awaiting-approval', 'the production push still waits')
    t.equal(await tip('main'), before)
    t.equal((await call('carol', 'POST', `/api/approvals/${prodJob}/reject`, {})).status, 200)
    t.equal(await tip('main'), before, 'rejected: nothing written')
  })

  await t.test('unknown and malformed job ids', async (t) => {
    t.equal((await call('carol', 'POST', '/api/approvals/00000000-0000-4000-8000-000000000000/approve')).status, 404)
    const bad = await call('carol', 'POST', '/api/approvals/x/reject', { reason: 'x'.repeat(501) })
    t.equal(bad.status, 400)
    t.equal(bad.body.error.details[0].field, 'reason')
    t.equal((await call('carol', 'POST', '/api/approvals/x/reject')).status, 400, 'a body is required (`{}` at least)')
  })
})
