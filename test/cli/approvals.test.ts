// `ies approvals` and `ies teams settings` against a real server, identity provider and Git server:
// the pipeline's client (an operator of the team, through client credentials) pushes a production
// environment and is told it awaits approval, cannot approve its own request, and approves and
// rejects pushes dev requested.
import t from 'tap'
import { getUserToken } from '../harness/identity.ts'
import { startGitServer } from '../harness/git-server.ts'
import { environmentBody } from '../harness/jobs.ts'
import { iesRunner, parseJson, PIPELINE_ENV, startCliServer } from './helpers.ts'

const DEPLOY_KEY = 'iest_c2VjcmV0LWRlcGxveS1rZXktZm9yLXRlc3Rz'

t.test('ies approvals list | approve | reject', async (t) => {
  const server = await startCliServer(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const remote = await git.createRepo('customer', { 'README.md': '# shop\n' })
  const token = async (username: 'admin' | 'dev') => (await getUserToken({ authUrl: server.idp.authUrl, username })).access_token
  const [admin, dev] = [await token('admin'), await token('dev')]
  const api = async (bearer: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    const parsed = (await res.json()) as any
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(parsed)}`)
    return parsed.data
  }
  const ies = iesRunner(server, PIPELINE_ENV)
  const ok = async (args: string[]) => {
    const res = await ies.run(args)
    t.equal(res.code, 0, `ies ${args.join(' ')}: ${res.stderr}`)
    return res
  }

  await api(admin, 'POST', '/teams', { name: 'platform' })
  await api(admin, 'PUT', '/teams/platform/members/user/dev', { role: 'editor' })
  await api(admin, 'PUT', '/teams/platform/members/client/ies-cli', { role: 'operator' })
  const refused = await ies.run(['teams', 'settings', 'platform', '--require-production-approval', 'on'])
  t.equal(refused.code, 5, 'only an admin sets it')
  await api(admin, 'PUT', '/teams/platform/settings', { requireProductionApproval: true })
  const env = await api(dev, 'POST', '/environments', {
    ...environmentBody({
      name: 'shop-prod',
      team: 'platform',
      labels: { tier: 'production' },
      services: { vpc: { enabled: true, singleNatGateway: false } },
    }),
    gitRepository: { url: remote, branch: 'main', deployKey: DEPLOY_KEY },
  })

  const own = await ok(['push', 'shop-prod', '--no-wait', '--json'])
  const ownJob = parseJson(own)
  t.equal(ownJob.status, 'awaiting-approval')
  t.match(own.stderr, new RegExp(`awaits approval .*ies approvals approve ${ownJob.id}`))
  const listed = parseJson(await ok(['approvals', 'list', '--json']))
  t.match(listed, [{ jobId: ownJob.id, environment: { name: 'shop-prod' }, canDecide: false }])
  const table = await ok(['approvals', 'list'])
  t.match(table.stdout, /JOB\s+ENVIRONMENT\s+TEAM\s+REQUESTED BY\s+EXPIRES\s+YOURS TO DECIDE/)
  t.match(table.stdout, new RegExp(`${ownJob.id}\\s+shop-prod\\s+platform\\s+service-account-ies-cli\\s+\\S+\\s+no`))
  const self = await ies.run(['approvals', 'approve', ownJob.id])
  t.equal(self.code, 5, 'the pipeline cannot approve its own request')
  t.match(self.stderr, /Another member/)

  const first = await api(dev, 'POST', `/environments/${env.id}/push`, {})
  const approved = await ok(['approvals', 'approve', first.id])
  t.match(approved.stdout, new RegExp(`Approved: push ${first.id} is (queued|running|succeeded)`))
  const second = await api(dev, 'POST', `/environments/${env.id}/push`, {})
  const rejected = await ok(['approvals', 'reject', second.id, '--reason', 'freeze week'])
  t.match(rejected.stdout, /Rejected: .*APPROVAL_REJECTED/)
  t.match(await api(dev, 'GET', `/jobs/${second.id}`), { status: 'failed', error: { message: /freeze week/ } })
  t.equal((await ies.run(['approvals', 'reject', second.id])).code, 3, 'decided once: a conflict')
})
