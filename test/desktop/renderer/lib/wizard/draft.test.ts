// A wizard draft is saved with the catalog's commit; reopened under another commit the user is
// told which services and fields changed or vanished.
import t from 'tap'
import { prepareCatalog } from '../../../../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'
import {
  clearDrafts,
  describeChange,
  diffDraft,
  draftKey,
  loadDraft,
  removeUnownedDrafts,
  saveDraft,
  type ListableStorage,
} from '../../../../../desktop/src/renderer/lib/wizard/draft.ts'
import { draftValuesOf, emptyValues } from '../../../../../desktop/src/renderer/lib/wizard/values.ts'
import staticCatalog from '../../../../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

function memoryStorage(): ListableStorage & { map: Map<string, string> } {
  const map = new Map<string, string>()
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
    get length() {
      return map.size
    },
    key: (i) => [...map.keys()][i] ?? null,
  }
}

t.test('a draft keeps the commit and is read back', async (t) => {
  const storage = memoryStorage()
  const catalog = prepareCatalog(staticCatalog)
  saveDraft(storage, draftKey('alice', null), catalog, { name: 'dev' }, { step: 2, now: new Date('2025-01-01T00:00:00Z') })
  const draft = loadDraft<{ name: string }>(storage, draftKey('alice', null))!
  t.equal(draft.commit, 'static')
  t.same(draft.values, { name: 'dev' })
  t.equal(draft.step, 2)
  t.same(diffDraft(draft, catalog), [], 'same commit: nothing to tell')
  storage.setItem(draftKey('alice', 'x'), '{not json')
  t.equal(loadDraft(storage, draftKey('alice', 'x')), null)
})

t.test('reopened under another commit: vanished and changed services and fields are named', async (t) => {
  const storage = memoryStorage()
  saveDraft(storage, 'k', prepareCatalog(staticCatalog), {})
  const next = structuredClone(staticCatalog) as any
  next.commit = 'new-commit'
  delete next.services.msk
  delete next.services.rds.fields.multiAz
  next.services.eks.fields.nodeMinSize.default = 3
  next.services.vpc.fields.cidr.pattern = '.*'
  next.services.sqs.fields.dlq = { displayName: 'DLQ', type: 'toggle', default: true }
  next.services.kinesis = { displayName: 'Kinesis', fields: { enabled: { displayName: 'Enabled', type: 'toggle', default: false } } }
  const changes = diffDraft(loadDraft(storage, 'k')!, prepareCatalog(next))
  t.same(
    changes.map((c) => [c.kind, c.service, c.field ?? null, c.attributes ?? null]).sort(),
    [
      ['field-added', 'sqs', 'dlq', null],
      ['field-changed', 'eks', 'nodeMinSize', ['default']],
      ['field-changed', 'vpc', 'cidr', ['pattern']],
      ['field-vanished', 'rds', 'multiAz', null],
      ['service-added', 'kinesis', null, null],
      ['service-vanished', 'msk', null, null],
    ].sort(),
  )
  t.match(changes.map(describeChange).join('\n'), /Service "msk" is no longer in the catalog/)
})

t.test("drafts belong to the signed-in subject; sign-out removes only that user's", async (t) => {
  const storage = memoryStorage()
  const catalog = prepareCatalog(staticCatalog)
  saveDraft(storage, draftKey('alice', null), catalog, { name: 'alice-env' })
  saveDraft(storage, draftKey('alice', 'env-1'), catalog, { name: 'alice-edit' })
  saveDraft(storage, draftKey('bob', null), catalog, { name: 'bob-env' })
  // a subject that looks like another's key prefix stays apart
  saveDraft(storage, draftKey('alice:x', null), catalog, { name: 'other' })
  t.equal(loadDraft(storage, draftKey('bob', 'env-1')), null, "bob does not see alice's edit draft")
  t.same(loadDraft<{ name: string }>(storage, draftKey('bob', null))!.values, { name: 'bob-env' })
  t.equal(clearDrafts(storage, 'alice'), 2)
  t.equal(loadDraft(storage, draftKey('alice', null)), null)
  t.ok(loadDraft(storage, draftKey('bob', null)), 'bob keeps his')
  t.ok(loadDraft(storage, draftKey('alice:x', null)))
})

t.test('drafts of earlier versions (no owner) are removed; other keys stay', async (t) => {
  const storage = memoryStorage()
  storage.setItem('ies.wizardDraft.new', JSON.stringify({ values: { gitRepository: { deployKey: 'old-secret' } } }))
  storage.setItem('ies.wizardDraft.abc', '{}')
  storage.setItem('ies.catalog', '{}')
  saveDraft(storage, draftKey('alice', null), prepareCatalog(staticCatalog), {})
  t.equal(removeUnownedDrafts(storage), 2)
  t.same([...storage.map.keys()].sort(), ['ies.catalog', draftKey('alice', null)].sort())
})

t.test('a draft never keeps the deploy key, and says it left it out', async (t) => {
  const storage = memoryStorage()
  const v = emptyValues({ provider: 'aws' })
  v.gitRepository = { url: 'https://git.example.com/a.git', branch: 'main', deployKey: 'ghp_SECRET_token_value', hasDeployKey: false }
  const kept = draftValuesOf(v)
  t.same(kept.leftOut, ['deploy key'])
  t.equal(v.gitRepository.deployKey, 'ghp_SECRET_token_value', "the wizard's own state is not changed")
  saveDraft(storage, draftKey('alice', null), prepareCatalog(staticCatalog), kept.values, { leftOut: kept.leftOut })
  const text = [...storage.map.values()].join('')
  t.notMatch(text, 'ghp_SECRET_token_value')
  const draft = loadDraft<typeof v>(storage, draftKey('alice', null))!
  t.equal(draft.values.gitRepository.url, 'https://git.example.com/a.git', 'the rest is kept')
  t.same(draft.leftOut, ['deploy key'])
  t.same(draftValuesOf(emptyValues({ provider: 'aws' })).leftOut, [], 'nothing typed, nothing to tell')
})
