// The templates' migrations (templates/migrations/) on stored environments, end to end against a
// real Git server: a record stored under an older catalog (the EKS public endpoint of the old
// default, a PostgreSQL "16.6" no longer offered) is stranded (its problems in GET /:id and the
// list); a dry run shows the configuration change and changes nothing; a push migrates the stored
// configuration and records the migration ids on the environment and in `.ies/generation.json`; a
// value the migrations cannot move fails the push naming the field; a download uses the migrated
// configuration in memory; a new environment has run every migration.
import t from 'tap'
import { checkout, startPushServer } from '../../../harness/push-server.ts'
import { environmentBody, unzip, waitForJob } from '../../../harness/jobs.ts'
import { oldDefaults, strandEnvironment } from '../../../harness/stranded.ts'

const DEPLOY_KEY = 'iest_bWlncmF0aW9ucy1kZXBsb3kta2V5LWZvci10ZXN0cw'
const MIGRATIONS = ['0001-eks-endpoint-private', '0002-postgresql-major-versions']

t.test('migrations on stored environments', async (t) => {
  const { git, app, url, dev, api } = await startPushServer(t, DEPLOY_KEY)
  const job = async (route: string, body: unknown) => {
    const queued = await api('POST', route, body)
    t.equal(queued.status, 202, JSON.stringify(queued.body))
    return waitForJob(url, dev, queued.body.data.id)
  }
  const remote = await git.createRepo('migrated', { 'README.md': '# shop\n' })

  /** An environment made through the API, then its stored record set back to what an older catalog accepted. */
  const strandedEnv = async (name: string, rds: Record<string, unknown>, branch: string) => {
    const created = await api('POST', '/environments', {
      ...environmentBody({ name, services: { vpc: { enabled: true }, eks: { enabled: true }, rds: { enabled: true } } }),
      gitRepository: { url: remote, branch, deployKey: DEPLOY_KEY },
    })
    t.equal(created.status, 201, JSON.stringify(created.body))
    t.same(created.body.data.migrations, MIGRATIONS, 'a new environment has run every migration of the templates')
    const id = created.body.data.id as string
    await strandEnvironment(app, id, oldDefaults(rds))
    return id
  }
  const head = async (branch: string) => (await git.git('migrated', ['rev-parse', branch]).catch(() => '')).trim()

  await t.test('stranded, previewed, pushed and recorded', async (t) => {
    const id = await strandedEnv('shop-legacy', { engineVersion: '16.6' }, 'main')

    const shown = await api('GET', `/environments/${id}`)
    t.match(shown.body.data.problems, [{ field: 'services.rds.engineVersion', message: /must be one of/ }], 'GET /:id names the field')
    const listed = await api('GET', '/environments')
    const row = listed.body.data.find((e: any) => e.id === id)
    t.match(row.problems, [{ field: 'services.rds.engineVersion' }], 'so does its list row')

    const before = await head('main')
    const dry = await job(`/environments/${id}/push`, { dryRun: true })
    t.equal(dry.status, 'succeeded', JSON.stringify(dry.error))
    t.same(dry.result.configurationChange, {
      migrations: MIGRATIONS,
      changes: [
        { field: 'services.eks.endpointPublicAccess', before: true, after: false },
        { field: 'services.rds.engineVersion', before: '16.6', after: '16' },
      ],
    })
    const tfvars = dry.result.changes.find((c: any) => c.path === 'terraform/terraform.tfvars')
    t.match(tfvars.diff, /\+rds_engine_version += "16"/, 'the file diff beside it is made from the migrated configuration')
    t.equal(await head('main'), before, 'a dry run pushes nothing')
    const unchanged = await api('GET', `/environments/${id}`)
    t.equal(unchanged.body.data.services.rds.engineVersion, '16.6', 'a dry run stores nothing')
    t.notOk(unchanged.body.data.migrations)

    const pushed = await job(`/environments/${id}/push`, {})
    t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
    t.same(pushed.result.configurationChange.migrations, MIGRATIONS)
    const after = await api('GET', `/environments/${id}`)
    t.equal(after.body.data.services.rds.engineVersion, '16')
    t.equal(after.body.data.services.eks.endpointPublicAccess, false)
    t.same(after.body.data.migrations, MIGRATIONS, 'the environment records the migrations that ran')
    t.notOk(after.body.data.problems, 'no longer stranded')
    t.same(after.body.data.behind, { templates: false, configuration: false }, 'the stored configuration is the one pushed')

    const clone = await checkout(t, git, DEPLOY_KEY, 'migrated')
    const record = JSON.parse(await clone.read('.ies/generation.json'))
    t.same(record.migrations, MIGRATIONS, '.ies/generation.json records them')
    t.equal(record.input.services.rds.engineVersion, '16')
    t.match(await clone.read('terraform/terraform.tfvars'), /eks_endpoint_public_access = false/)

    const again = await job(`/environments/${id}/push`, {})
    t.notOk(again.result.configurationChange, 'nothing is pending any more')
    t.equal(again.result.changed, false)
  })

  await t.test('a value no migration can move fails the push naming the field; nothing is pushed', async (t) => {
    const id = await strandedEnv('shop-pg15', { engineVersion: '15.10' }, 'pg15')
    const failed = await job(`/environments/${id}/push`, {})
    t.equal(failed.status, 'failed')
    t.equal(failed.error?.code, 'MIGRATION_FAILED')
    t.match(failed.error?.message, /0002-postgresql-major-versions cannot move services\.rds\.engineVersion: "15\.10" is no longer offered/)
    t.match(failed.error?.details, { problems: [{ field: 'services.rds.engineVersion', migration: '0002-postgresql-major-versions' }] })
    t.equal(await head('pg15'), '', 'the branch was not created')
    const env = await api('GET', `/environments/${id}`)
    t.equal(env.body.data.services.rds.engineVersion, '15.10', 'the stored value is left for its owner to choose')
    t.equal(env.body.data.services.eks.endpointPublicAccess, true, 'and no half-migrated configuration is stored')
  })

  await t.test('a download generates from the migrated configuration in memory', async (t) => {
    const id = await strandedEnv('shop-download', { engineVersion: '17.2' }, 'download')
    const generated = await job(`/environments/${id}/generate`, { format: 'terraform' })
    t.equal(generated.status, 'succeeded', JSON.stringify(generated.error))
    const res = await fetch(`${url}/api/jobs/${generated.id}/download`, { headers: dev })
    const files = await unzip(Buffer.from(await res.arrayBuffer()))
    t.match(files.get('terraform/terraform.tfvars'), /rds_engine_version += "17"/)
    t.same(JSON.parse(files.get('.ies/generation.json')!).migrations, MIGRATIONS)
    const env = await api('GET', `/environments/${id}`)
    t.equal(env.body.data.services.rds.engineVersion, '17.2', 'a download stores nothing')
  })
})
