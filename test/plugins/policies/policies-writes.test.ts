// The organisation's rules on every environment write: a `deny` is 400 POLICY_DENIED naming each
// rule and field and stores nothing (create, update, a move into a team, a restore); a `warn` is
// stored and returned. An organisation rule comes from the folder POLICIES_DIR names.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { startTestApp } from '../../harness/app.ts'
import { api } from '../helpers.ts'

const base = { globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1' }

/** An organisation's own rule: the platform team's databases are Multi-AZ, whatever the tier. */
const PLATFORM_RULE = `package ies.rules.platform_multi_az

deny contains {"field": "services.rds.multiAz", "message": "the platform team runs Multi-AZ databases only"} if {
	input.environment.team == "platform"
	input.environment.services.rds.enabled == true
	input.environment.services.rds.multiAz != true
}
`

type Detail = { field: string; rule: string; message: string }

t.test('rules on environment writes', async (t) => {
  const rules = await mkdtemp(path.join(os.tmpdir(), 'ies-org-rules-'))
  t.teardown(() => rm(rules, { recursive: true, force: true }))
  await writeFile(path.join(rules, 'platform.rego'), PLATFORM_RULE)
  const ctx = await startTestApp(t, { POLICIES_DIR: rules, PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const a = api(ctx)
  const names = async () => ((await a.listEnvs('dev', '?limit=100')).body.data as Array<{ name: string }>).map((e) => e.name)

  t.test('a deny refuses a create with each rule and field named, and stores nothing', async (t) => {
    const res = await a.createEnv('dev', {
      ...base,
      name: 'shop-prod',
      labels: { tier: 'production' },
      services: { rds: { enabled: true, multiAz: false }, vpc: { enabled: true, singleNatGateway: true } },
    })
    t.equal(res.status, 400, res.raw)
    t.equal(res.body.error.code, 'POLICY_DENIED')
    const details = res.body.error.details as Detail[]
    t.match(details, [{ rule: String, field: String, message: String }])
    const pairs = details.map((d) => `${d.rule} ${d.field}`)
    t.ok(pairs.includes('rds_multi_az services.rds.multiAz'), pairs.join('\n'))
    t.ok(pairs.includes('vpc_nat_per_zone services.vpc.singleNatGateway'), pairs.join('\n'))
    t.ok(pairs.includes('rds_deletion_protection services.rds.deletionProtection') === false, 'the catalog default (true) counts')
    t.notOk((await names()).includes('shop-prod'), 'nothing stored')
  })

  t.test('the catalog default of an unset field is what the rules see', async (t) => {
    // rds.multiAz defaults to false in the templates: production with RDS and no value is refused.
    const res = await a.createEnv('dev', {
      ...base,
      name: 'shop-prod',
      labels: { tier: 'production' },
      services: { rds: { enabled: true } },
    })
    t.equal(res.status, 400)
    t.ok((res.body.error.details as Detail[]).some((d) => d.rule === 'rds_multi_az'))
  })

  let devId = ''
  t.test('a warn is stored and returned', async (t) => {
    const res = await a.createEnv('dev', {
      ...base,
      name: 'shop-dev',
      labels: { tier: 'development' },
      services: { s3: { enabled: true, versioning: false }, rds: { enabled: true, multiAz: false } },
    })
    t.equal(res.status, 201, res.raw)
    devId = res.body.data.id
    const warnings = res.body.data.warnings as Detail[]
    t.ok(
      warnings.some((w) => w.rule === 's3_versioning' && w.field === 'services.s3.versioning'),
      JSON.stringify(warnings),
    )
    const stored = await a.getEnv('dev', devId)
    t.equal(stored.body.data.services.s3.versioning, false, 'stored as written')
  })

  t.test('an update into production is refused and changes nothing', async (t) => {
    const res = await a.putEnv('dev', devId, { labels: { tier: 'production' } })
    t.equal(res.status, 400)
    t.equal(res.body.error.code, 'POLICY_DENIED')
    const fields = (res.body.error.details as Detail[]).map((d) => d.field)
    t.ok(fields.includes('services.s3.versioning') && fields.includes('services.rds.multiAz'), fields.join(', '))
    t.equal((await a.getEnv('dev', devId)).body.data.labels.tier, 'development', 'nothing stored')
  })

  t.test('an organisation rule from POLICIES_DIR refuses a move into its team, and a restore', async (t) => {
    const admin = (method: 'POST' | 'PUT', url: string, body: unknown) => a.call('admin', method, url, body)
    t.equal((await admin('POST', '/api/teams', { name: 'platform' })).status, 201)
    t.equal((await admin('PUT', '/api/teams/platform/members/user/dev', { role: 'editor' })).status, 200)

    const move = await a.putEnv('dev', devId, { team: 'platform' })
    t.equal(move.status, 400, move.raw)
    t.same(
      (move.body.error.details as Detail[]).map((d) => [d.rule, d.field]),
      [['platform_multi_az', 'services.rds.multiAz']],
    )
    t.notOk((await a.getEnv('dev', devId)).body.data.team, 'not moved')

    const fixed = await a.putEnv('dev', devId, { services: { rds: { multiAz: true } }, team: 'platform' })
    t.equal(fixed.status, 200, fixed.raw)
    t.equal(fixed.body.data.team, 'platform')

    // Entry 1 (the create) had multiAz false: restoring it in the platform team is refused.
    const restore = await a.call('dev', 'POST', `/api/environments/${devId}/history/1/restore`)
    t.equal(restore.status, 400, JSON.stringify(restore.body))
    t.equal(restore.body.error.details[0].rule, 'platform_multi_az')
    t.equal((await a.getEnv('dev', devId)).body.data.services.rds.multiAz, true, 'nothing restored')
  })

  t.test('POST /api/policies/evaluate judges a draft without storing it', async (t) => {
    const res = await a.call('dev', 'POST', '/api/policies/evaluate', {
      environment: {
        ...base,
        name: 'draft-prod',
        labels: { tier: 'production' },
        services: { eks: { enabled: true, endpointPublicAccess: true } },
      },
    })
    t.equal(res.status, 200, res.raw)
    t.same(
      res.body.data.deny.map((d: Detail) => [d.rule, d.field]),
      [['eks_private_endpoint', 'services.eks.endpointPublicAccess']],
    )
    t.same(res.body.data.warn, [])
    t.notOk((await names()).includes('draft-prod'))
    t.equal((await a.call('dev', 'POST', '/api/policies/evaluate', { environment: 'x' })).status, 400)
  })

  t.test('a push of an environment the rules now refuse is refused before any job', async (t) => {
    const created = await a.createEnv('dev', {
      ...base,
      name: 'shop-stage',
      labels: { tier: 'staging' },
      services: { vpc: { enabled: true, singleNatGateway: true } },
      gitRepository: { url: 'http://127.0.0.1:9/acme/infra.git', branch: 'main', deployKey: 'token-123' },
    })
    t.equal(created.status, 201, created.raw)
    const id = created.body.data.id
    // Stored before a rule refused it (here: labelled production behind the API's back, as a record
    // written before the rules existed would be).
    await ctx.app.mongo.db.collection('environments').updateOne({ _id: id } as never, { $set: { labels: { tier: 'production' } } })
    const res = await a.call('dev', 'POST', `/api/environments/${id}/push`, {})
    t.equal(res.status, 400, res.raw)
    t.equal(res.body.error.code, 'POLICY_DENIED')
    t.same(
      res.body.error.details.map((d: Detail) => [d.rule, d.field]),
      [['vpc_nat_per_zone', 'services.vpc.singleNatGateway']],
    )
    const jobs = await a.call('dev', 'GET', `/api/environments/${id}/jobs`)
    t.equal(jobs.status, 200, jobs.raw)
    t.same(jobs.body.data, [], 'no job queued')
  })
})
