// A wizard draft is saved with the catalog's commit; reopened under another commit the user is
// told which services and fields changed or vanished.
import t from 'tap'
import { prepareCatalog } from '../../desktop/src/lib/catalog.ts'
import { describeChange, diffDraft, draftKey, loadDraft, saveDraft, type KeyValueStorage } from '../../desktop/src/lib/draft.ts'
import staticCatalog from '../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

function memoryStorage(): KeyValueStorage & { map: Map<string, string> } {
  const map = new Map<string, string>()
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) }
}

t.test('a draft keeps the commit and is read back', async (t) => {
  const storage = memoryStorage()
  const catalog = prepareCatalog(staticCatalog)
  saveDraft(storage, draftKey(null), catalog, { name: 'dev' }, 2, new Date('2025-01-01T00:00:00Z'))
  const draft = loadDraft<{ name: string }>(storage, draftKey(null))!
  t.equal(draft.commit, 'static')
  t.same(draft.values, { name: 'dev' })
  t.equal(draft.step, 2)
  t.same(diffDraft(draft, catalog), [], 'same commit: nothing to tell')
  storage.setItem(draftKey('x'), '{not json')
  t.equal(loadDraft(storage, draftKey('x')), null)
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
