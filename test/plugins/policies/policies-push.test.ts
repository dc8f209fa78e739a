// The organisation's rules before a push judge what the push generates: the stored configuration
// after the templates' pending migrations. A production environment stored with the old EKS default
// (public endpoint, no CIDR blocks), which migration 0001 makes private, is pushed; one whose public
// endpoint has CIDR blocks (the migration keeps it) is refused with POLICY_DENIED naming the rule.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { startGitServer } from '../../harness/git-server.ts'
import { strandEnvironment } from '../../harness/stranded.ts'
import { environmentBody, waitForJob } from '../../harness/jobs.ts'

const DEPLOY_KEY = 'iest_cnVsZXMtb24tdGhlLXB1c2hlZC1jb25maWd1cmF0aW9u'

t.test('rules before a push read the configuration after its migrations', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const ctx = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const remote = await git.createRepo('shop', { 'README.md': '# shop\n' })
  const headers = { ...ctx.auth('dev'), 'content-type': 'application/json' }
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${ctx.url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const production = async (name: string, eks: Record<string, unknown>) => {
    const services = { vpc: { enabled: true, singleNatGateway: false }, eks: { enabled: true } }
    const made = await api('POST', '/environments', {
      ...environmentBody({ name, labels: { tier: 'production' }, services }),
      gitRepository: { url: remote, branch: name, deployKey: DEPLOY_KEY },
    })
    t.equal(made.status, 201, JSON.stringify(made.body))
    const id = made.body.data.id as string
    await strandEnvironment(ctx.app, id, (s) => ({ ...s, eks: { ...s.eks, ...eks } }))
    return id
  }

  const migrated = await production('shop-old-default', { endpointPublicAccess: true, publicAccessCidrs: '' })
  const push = await api('POST', `/environments/${migrated}/push`, { dryRun: true })
  t.equal(push.status, 202, `the migration makes the endpoint private: ${JSON.stringify(push.body.error ?? null)}`)
  const done = await waitForJob(ctx.url, headers, push.body.data.id)
  t.equal(done.status, 'succeeded', JSON.stringify(done.error ?? null))

  const kept = await production('shop-public', { endpointPublicAccess: true, publicAccessCidrs: '203.0.113.0/24' })
  const refused = await api('POST', `/environments/${kept}/push`, { dryRun: true })
  t.equal(refused.status, 400)
  t.match(refused.body.error, {
    code: 'POLICY_DENIED',
    details: [{ rule: 'eks_private_endpoint', field: 'services.eks.endpointPublicAccess' }],
  })
})
