// How the History tab words entries (desktop/src/renderer/lib/environments/change-history.ts).
import t from 'tap'
import { diffValue, entryLine, restorable } from '../../../../../desktop/src/renderer/lib/environments/change-history.ts'
import type { HistoryEntry } from '../../../../../desktop/src/renderer/lib/api/types.ts'

const base: HistoryEntry = {
  id: 3,
  environmentId: 'e1',
  environmentName: 'shop',
  kind: 'update',
  at: '2026-01-01T00:00:00.000Z',
  actor: { userId: 'u1', username: 'dev' },
  requestId: 'r1',
}

t.test('values in the diff', async (t) => {
  t.equal(diffValue(undefined), 'not set')
  t.equal(diffValue(''), '""')
  t.equal(diffValue('shop.example.com'), 'shop.example.com')
  t.equal(diffValue(3), '3')
  t.equal(diffValue(['a', 'b']), '["a","b"]')
})

t.test('the line beside the kind', async (t) => {
  t.equal(entryLine({ ...base, changes: [{ field: 'domain', after: 'x' }] }), '1 field')
  t.equal(entryLine({ ...base, kind: 'credential', changes: [], secretsChanged: ['gitRepository.deployKey'] }), 'deploy key replaced')
  t.equal(
    entryLine({
      ...base,
      kind: 'create',
      changes: [
        { field: 'name', after: 'shop' },
        { field: 'region', after: 'x' },
      ],
    }),
    '2 settings',
  )
  t.equal(
    entryLine({ ...base, kind: 'restore', restoredFrom: 1, changes: [{ field: 'domain', before: 'a', after: 'b' }] }),
    'configuration of #1 · 1 field',
  )
  t.equal(entryLine({ ...base, kind: 'push', jobId: '0123456789abcdef' }), 'job 01234567')
})

t.test('what can be restored: entries with a configuration', async (t) => {
  for (const kind of ['create', 'update', 'credential', 'restore'] as const) t.ok(restorable({ ...base, kind }), kind)
  for (const kind of ['delete', 'generate', 'push', 'push-dry-run', 'upgrade', 'credential-rotated'] as const)
    t.notOk(restorable({ ...base, kind }), kind)
})
