// The configuration a history entry keeps, the diff of two, and the merge patch of a restore
// (plugins/history/configuration.ts), without a server: what the routes' tests build on.
import t from 'tap'
import { configurationOf, diff, onlyCredentials, restorePatch } from '../../../plugins/history/configuration.ts'
import { mergePatch } from '../../../plugins/environments/merge-patch.ts'

const served = {
  id: 'e1',
  name: 'shop',
  globalPrefix: 'acme',
  provider: 'aws' as const,
  region: 'eu-west-1',
  domain: 'a.example.com',
  services: { eks: { enabled: true, nodeCount: 3, zones: ['a', 'b'] } },
  helmCharts: {},
  gitRepository: { url: 'https://git.example.com/a.git', branch: 'main', hasDeployKey: true },
  status: 'pending' as const,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  lastPush: null,
  behind: { templates: false, configuration: false },
}

t.test('the configuration leaves out identity, state, timestamps and push status', async (t) => {
  t.same(Object.keys(configurationOf(served)).sort(), [
    'domain',
    'gitRepository',
    'globalPrefix',
    'helmCharts',
    'name',
    'provider',
    'region',
    'services',
  ])
})

t.test('the diff names leaves by dotted path; arrays are one value', async (t) => {
  const before = configurationOf(served)
  const after = structuredClone(before) as any
  after.domain = 'b.example.com'
  after.services.eks.zones = ['a']
  after.services.rds = { enabled: true, size: 'small' }
  delete after.gitRepository
  t.same(diff(before, after), [
    { field: 'domain', before: 'a.example.com', after: 'b.example.com' },
    { field: 'gitRepository.branch', before: 'main' },
    { field: 'gitRepository.hasDeployKey', before: true },
    { field: 'gitRepository.url', before: 'https://git.example.com/a.git' },
    { field: 'services.eks.zones', before: ['a', 'b'], after: ['a'] },
    { field: 'services.rds.enabled', after: true },
    { field: 'services.rds.size', after: 'small' },
  ])
  t.same(diff(before, before), [], 'nothing changed')
  t.same(
    diff({ a: 'x' }, { a: { b: 1 } }),
    [
      { field: 'a.b', after: 1 },
      { field: 'a', before: 'x' },
    ],
    'a value replaced by an object',
  )
})

t.test('a change of the credential or the deploy key alone', async (t) => {
  t.ok(onlyCredentials([{ field: 'cloudCredentialId', before: 'a', after: 'b' }], []))
  t.ok(onlyCredentials([], ['gitRepository.deployKey']))
  t.notOk(onlyCredentials([{ field: 'domain', after: 'x' }], ['gitRepository.deployKey']))
  t.notOk(onlyCredentials([], []))
})

t.test('the restore patch, merged into the current input, gives the target (without hasDeployKey)', async (t) => {
  const target = configurationOf(served)
  const current = {
    name: 'shop',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-central-1',
    domain: 'b.example.com',
    services: { eks: { enabled: false, nodeCount: 3 }, rds: { enabled: true } },
    helmCharts: { ingress: { enabled: true, customValues: false, values: '' } },
    cloudCredentialId: '3f0c1a8e-0000-4000-8000-000000000001',
  }
  const patch = restorePatch(current, target)
  t.same(patch, {
    cloudCredentialId: null,
    region: 'eu-west-1',
    domain: 'a.example.com',
    services: { rds: null, eks: { enabled: true, zones: ['a', 'b'] } },
    helmCharts: { ingress: null },
    gitRepository: { url: 'https://git.example.com/a.git', branch: 'main' },
  })
  const { gitRepository, ...rest } = target as any
  const { hasDeployKey, ...repository } = gitRepository
  t.equal(hasDeployKey, true)
  t.same(mergePatch(current, patch), { ...rest, gitRepository: repository })
  t.same(restorePatch(mergePatch(current, patch) as Record<string, unknown>, target), {}, 'restoring twice changes nothing')
})
