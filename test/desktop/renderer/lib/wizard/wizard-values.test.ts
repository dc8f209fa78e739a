// How the wizard's state becomes requests: create body, merge patch on edit, the write-only deploy
// key, and the step that shows a field the server named.
import t from 'tap'
import {
  emptyValues,
  reviewOf,
  stepOfField,
  suggestedBucket,
  toCreateRequest,
  toUpdatePatch,
  valuesFromEnvironment,
} from '../../../../../desktop/src/renderer/lib/wizard/values.ts'

t.test('create body: only what the user set, nulls dropped, domain always sent', async (t) => {
  const v = emptyValues({ provider: 'aws', globalPrefix: 'acme', region: 'eu-west-1' })
  v.name = 'dev'
  v.services = { rds: { enabled: true, allocatedStorage: 20, kmsKey: null } }
  t.same(toCreateRequest(v), {
    name: 'dev',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-west-1',
    domain: '',
    services: { rds: { enabled: true, allocatedStorage: 20 } },
  })
  v.backendMode = 'existing'
  v.terraformBackend.bucket = 'state'
  v.gitRepository = { url: 'https://git.example.com/a.git', branch: 'main', deployKey: 'KEY', hasDeployKey: false }
  v.cloudCredentialId = 'c1'
  const body = toCreateRequest(v)
  t.same(body.terraformBackend, { bucket: 'state', useLockfile: true })
  t.same(body.gitRepository, { url: 'https://git.example.com/a.git', branch: 'main', deployKey: 'KEY' })
  t.equal(body.cloudCredentialId, 'c1')
})

t.test('edit: a merge patch without the immutable fields; the stored key is not resent', async (t) => {
  const v = valuesFromEnvironment({
    id: 'e1',
    name: 'dev',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-west-1',
    domain: 'example.com',
    status: 'pending',
    services: { rds: { enabled: true } },
    helmCharts: {},
    gitRepository: { url: 'https://git.example.com/a.git', branch: 'main', hasDeployKey: true },
    createdAt: '',
    updatedAt: '',
  })
  const patch = toUpdatePatch(v)
  t.notOk('name' in patch || 'globalPrefix' in patch)
  t.same(patch.gitRepository, { url: 'https://git.example.com/a.git', branch: 'main' })
  t.equal(patch.terraformBackend, null, 'cleared fields are removed with null')
  t.equal(patch.cloudCredentialId, null)
  t.match(JSON.stringify(reviewOf(v, true)), /stored, unchanged/)
  v.gitRepository.deployKey = '-----BEGIN OPENSSH PRIVATE KEY-----'
  t.notMatch(JSON.stringify(reviewOf(v, true)), /BEGIN/, 'the review never shows a key')
})

t.test('server field errors lead to their step', async (t) => {
  t.equal(stepOfField('name'), 0)
  t.equal(stepOfField('domain'), 0)
  t.equal(stepOfField('services.rds.instanceClass'), 1)
  t.equal(stepOfField('terraformBackend.bucket'), 2)
  t.equal(stepOfField('gitRepository.deployKey'), 3)
  t.equal(stepOfField('cloudCredentialId'), 4)
  t.equal(stepOfField('driftCheckHours'), 4, 'the drift check is on the Cloud credential step')
})

t.test('the state bucket IES proposes: <prefix>-<name>-tfstate, a valid S3 name, or nothing', async (t) => {
  t.equal(suggestedBucket({ globalPrefix: 'Acme', name: 'shop-prod' }), 'acme-shop-prod-tfstate')
  t.equal(suggestedBucket({ globalPrefix: 'a_c me', name: '--x--' }), 'a-c-me-x-tfstate', 'other characters become hyphens')
  t.equal(suggestedBucket({ globalPrefix: '', name: '' }), '', 'nothing to name it after')
  const long = suggestedBucket({ globalPrefix: 'p'.repeat(40), name: 'n'.repeat(40) })
  t.ok(long.length <= 63 && /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(long), `at most 63 characters: ${long}`)
})

t.test('the drift check: sent as hours when set, removed with null when cleared, kept when editing', async (t) => {
  const v = emptyValues({ provider: 'aws', globalPrefix: 'acme', region: 'eu-west-1' })
  v.name = 'dev'
  t.notOk('driftCheckHours' in toCreateRequest(v), 'no schedule: not sent')
  v.driftCheckHours = '24'
  t.equal(toCreateRequest(v).driftCheckHours, 24)
  v.driftCheckHours = '0'
  t.notOk('driftCheckHours' in toCreateRequest(v), 'a refused value is never sent (the step shows the error)')
  const stored = valuesFromEnvironment({
    id: 'e1',
    name: 'dev',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-west-1',
    domain: '',
    status: 'pending',
    services: {},
    helmCharts: {},
    driftCheckHours: 12,
    createdAt: '',
    updatedAt: '',
  })
  t.equal(stored.driftCheckHours, '12', 'the stored schedule is shown')
  t.equal(toUpdatePatch(stored).driftCheckHours, 12, 'an edit keeps it')
  stored.driftCheckHours = ''
  t.equal(toUpdatePatch(stored).driftCheckHours, null, 'cleared: null turns it off (merge patch)')
})
