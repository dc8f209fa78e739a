// A bulk upgrade judges each environment's stored values as the push it starts will: after the
// migrations of the version it goes to, against that version's catalog. An environment pinned to
// templates that offer its node instance type is skipped by an upgrade to a version that no longer
// offers it (while the newest offers it again), naming the field; once the newest templates drop the
// option and add a migration that moves the value, an upgrade to the newest pushes it, though the
// newest catalog refuses the value as stored (GET /upgrades still lists that, as documented).
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { eventually } from '../../harness/eventually.ts'
import { environmentBody } from '../../harness/jobs.ts'
import { checkout, pushedAndPinned, rolloutEnded, startPushServer } from '../../harness/push-server.ts'

const DEPLOY_KEY = 'iest_dXBncmFkZS1zdG9yZWQtdmFsdWVzLWRlcGxveS1rZXk'
const TFVARS = 'terraform/terraform.tfvars'
const OPTION = ',{"value":"c6i.xlarge","label":"c6i.xlarge"}'
const MOVE_TYPE = `id: 0900-eks-node-instance-type-c6i
description: c6i.xlarge nodes are no longer offered; they become m6i.large.
steps:
  - map: { path: services.eks.nodeInstanceType, values: { "c6i.xlarge": "m6i.large" } }
`

t.test('an upgrade judges stored values at the version it goes to', async (t) => {
  const server = await startPushServer(t, DEPLOY_KEY, async (git) => {
    await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
    return { TEMPLATES_REPO: git.url('templates', true), CATALOG_CACHE_TTL_MS: '0' }
  })
  const { git, api } = server
  const remote = await git.createRepo('shop-dev', { 'README.md': '# shop\n' })
  const services = { vpc: { enabled: true }, eks: { enabled: true, nodeInstanceType: 'c6i.xlarge' } }
  const { id } = await pushedAndPinned(server, DEPLOY_KEY, remote, environmentBody({ name: 'shop-dev', services }))

  const templates = await checkout(t, git, DEPLOY_KEY, 'templates')
  const commit = async (message: string) => {
    await templates.commitAndPush(message)
    return (await templates.git('rev-parse', 'HEAD')).trim()
  }
  const current = (commit: string) =>
    eventually(
      async () => (await api('GET', '/catalog')).body.data?.commit,
      (c) => c === commit,
      { timeoutMs: 30_000, intervalMs: 200 },
    )
  const upgrade = async (body: Record<string, unknown>) => {
    const started = await api('POST', '/environments/upgrade', { ids: [id], ...body })
    t.equal(started.status, 202, JSON.stringify(started.body))
    return rolloutEnded(api, started.body.data.rolloutId)
  }

  // A version that drops the option, then the newest, which offers it again.
  await templates.edit(TFVARS, (text) => text.replace(OPTION, ''))
  const dropped = await commit('templates: c6i.xlarge is no longer offered')
  await templates.edit(TFVARS, (text) => text.replace('{"value":"m6i.large","label":"m6i.large"}', `$&${OPTION}`))
  t.ok((await templates.read(TFVARS)).includes(`"m6i.large"}${OPTION}`), 'the option is back')
  await current(await commit('templates: c6i.xlarge is offered again'))
  t.same((await api('GET', `/environments/${id}`)).body.data.problems ?? [], [], 'the current catalog accepts the value')

  const refused = await upgrade({ to: dropped })
  t.match(refused.skipped, [{ name: 'shop-dev', reason: /^The templates refuse the stored value of services\.eks\.nodeInstanceType: / }])
  t.same(
    refused.waves.flatMap((w: any) => w.environments),
    [],
    'the target version refuses the value: nothing is pushed',
  )

  // The newest drops the option again, with a migration that moves the value.
  await templates.edit(TFVARS, (text) => text.replace(OPTION, ''))
  await templates.write('migrations/0900-eks-node-instance-type-c6i.yaml', MOVE_TYPE)
  await templates.git('add', 'migrations')
  await current(await commit('templates: c6i.xlarge nodes become m6i.large'))
  const status = (await api('GET', '/environments/upgrades')).body.data
  t.match(status, [{ name: 'shop-dev', problems: [{ field: 'services.eks.nodeInstanceType' }] }], 'the status judges the value as stored')

  const moved = await upgrade({})
  t.same(moved.skipped, [], 'after the migration the newest catalog accepts the value')
  t.equal(moved.status, 'succeeded', JSON.stringify(moved))
  t.match(moved.waves[0].environments, [{ name: 'shop-dev', outcome: 'pushed' }])
  const after = (await api('GET', `/environments/${id}`)).body.data
  t.equal(after.services.eks.nodeInstanceType, 'm6i.large', 'the push stored the migrated value')
})
