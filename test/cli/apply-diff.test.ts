// The plan of `ies apply` against the server's own JSON Merge Patch: whatever the file and the stored
// environment hold, the patch the plan sends brings the environment to the file (a second plan finds
// nothing), and members the file leaves out are never touched.
import fc from 'fast-check'
import t from 'tap'
import { diff } from '../../cli/src/apply.ts'
import { mergePatch } from '../../plugins/environments/merge-patch.ts'

const key = fc.constantFrom('a', 'b', 'c', 'domain', 'services')
const leaf = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer({ min: 0, max: 3 }),
  fc.boolean(),
  fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
)
const { tree } = fc.letrec((tie) => ({
  tree: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, leaf, tie('tree')), { maxKeys: 4 }),
}))
const desired = fc.letrec((tie) => ({
  node: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, leaf, fc.constant(null), tie('node')), { maxKeys: 4 }),
})).node

t.test('applying the plan’s patch leaves nothing to change', async (t) => {
  fc.assert(
    fc.property(desired, tree, (want, current) => {
      const { patch } = diff(want as Record<string, unknown>, current as Record<string, unknown>)
      const after = patch ? (mergePatch(current as never, patch as never) as Record<string, unknown>) : current
      return diff(want as Record<string, unknown>, after as Record<string, unknown>).changes.length === 0
    }),
    { numRuns: 2000 },
  )
  t.pass('2000 random files and environments')
})

t.test('members the file leaves out are kept', async (t) => {
  fc.assert(
    fc.property(desired, tree, (want, current) => {
      const { patch } = diff(want as Record<string, unknown>, current as Record<string, unknown>)
      const after = (patch ? mergePatch(current as never, patch as never) : current) as Record<string, unknown>
      return Object.keys(current).every(
        (k) => k in want || JSON.stringify(after[k]) === JSON.stringify((current as Record<string, unknown>)[k]),
      )
    }),
    { numRuns: 2000 },
  )
  t.pass('2000 random files and environments')
})

t.test('an equal file plans nothing; bookkeeping members are ignored', async (t) => {
  t.same(
    diff(
      { name: 'x', services: { vpc: { enabled: true } } },
      { name: 'x', id: '1', services: { vpc: { enabled: true, cidr: '10.0.0.0/16' } } },
    ),
    { changes: [] },
  )
  t.same(diff({ id: 'other', status: 'running' }, { id: '1', status: 'pending' }), { changes: [] })
  t.same(diff({ domain: null }, { domain: '' }), { changes: [] }, 'null is satisfied by the server’s empty value')
})

t.test('the export (ies env export and the web UI, one module) keeps configuration only', async (t) => {
  const { exportableConfiguration } = await import('../../cli/src/export-config.ts')
  const environment = {
    id: '5f0c1e1a-0000-4000-8000-000000000001',
    name: 'shop',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-west-1',
    domain: '',
    services: { vpc: { enabled: true, cidr: '10.0.0.0/16' } },
    helmCharts: {},
    terraformBackend: { bucket: 'acme-state', key: 'env/x/aws.tfstate', useLockfile: true },
    gitRepository: { url: 'https://git.example.com/acme/shop.git', branch: 'main', hasDeployKey: true },
    cloudCredentialId: '5f0c1e1a-0000-4000-8000-000000000002',
    status: 'pending',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    lastPush: { jobId: 'j', commit: 'c', branch: 'main', templatesCommit: 't', pushedAt: '2026-01-01T00:00:00Z' },
    behind: { templates: true, configuration: false },
  }
  t.same(Object.keys(exportableConfiguration(environment)), [
    'name',
    'globalPrefix',
    'provider',
    'region',
    'domain',
    'services',
    'helmCharts',
    'terraformBackend',
    'gitRepository',
  ])
})
