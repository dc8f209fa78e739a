// The history store on FerretDB (plugins/history/store.ts): concurrent appends in one server take
// numbers 1..n without a gap or a repeat, across a page boundary, written together while they wait; a range reads newest first from
// the pages that hold it; a large configuration is kept beside its page; the export window selects
// by time; pruning removes only what retention let go.
import t from 'tap'
import { startTestDatabase } from '../../harness/database.ts'
import { HistoryStore, PAGE_SIZE, type NewEntry } from '../../../plugins/history/store.ts'

const entry = (environmentId: string, at = new Date()): NewEntry => ({
  environmentId,
  environmentName: 'shop',
  kind: 'update',
  at,
  actor: { userId: 'u1', username: 'dev' },
  requestId: 'r1',
  changes: [{ field: 'domain', before: 'a', after: 'b' }],
  configuration: { domain: 'b', services: { eks: { enabled: true } } },
})

t.test('history store', async (t) => {
  const db = (await startTestDatabase(t)).client.db()
  const store = new HistoryStore(db)
  await store.indexes()
  const n = PAGE_SIZE + 10

  const ids = await Promise.all(Array.from({ length: n }, () => store.append(entry('env-a'))))
  t.same(
    [...ids].sort((a, b) => a - b),
    Array.from({ length: n }, (_, i) => i + 1),
    'every append its own number, none skipped',
  )
  t.equal(await store.count('env-a'), n)
  const head = await db.collection<{ _id: string; version: number }>('environmentHistory').findOne({ _id: 'env-a' })
  t.ok(head!.version < n / 2, `appends that waited their turn were written together (${n} entries, ${head!.version} head writes)`)
  const stored = await store.range('env-a', 1, n)
  t.same(
    stored.map((e) => e.id),
    Array.from({ length: n }, (_, i) => n - i),
    'each number once, on its page',
  )
  const across = await store.range('env-a', PAGE_SIZE - 4, PAGE_SIZE + 5)
  t.same(
    across.map((e) => e.id),
    Array.from({ length: 10 }, (_, i) => PAGE_SIZE + 5 - i),
    'a range across two pages, newest first',
  )
  t.same(across[0].changes, [{ field: 'domain', before: 'a', after: 'b' }], 'the diff reads back as it was recorded')
  t.same(across[0].configuration, { domain: 'b', services: { eks: { enabled: true } } })
  t.equal(await store.entry('env-a', n + 1), null, 'no entry past the end')

  const helm = { ingress: { enabled: true, customValues: true, values: 'x: 1\n'.repeat(10_000) } }
  const large = await store.append({ ...entry('env-a'), configuration: { helmCharts: helm } })
  t.same((await store.entry('env-a', large))?.configuration, { helmCharts: helm }, 'a large configuration reads back whole')
  const page = await db
    .collection<{ _id: string; entries: object[] }>('environmentHistory')
    .findOne({ _id: `env-a:${Math.floor((large - 1) / PAGE_SIZE)}` })
  t.ok(JSON.stringify(page).length < 20_000, 'its page holds the entry without it')

  const old = new Date('2020-01-01T00:00:00Z')
  await store.append(entry('env-b', old))
  const window = []
  for await (const e of store.between(new Date('2019-12-31T00:00:00Z'), new Date('2020-01-02T00:00:00Z'))) window.push(e)
  t.same(
    window.map((e) => [e.environmentId, e.id]),
    [['env-b', 1]],
    'the export window holds only what happened in it',
  )

  await store.append({ ...entry('env-b'), kind: 'delete' }, new Date(Date.now() + 60_000))
  t.equal(await store.prune(), 0, 'kept until its retention ends')
  t.equal(await store.prune(new Date(Date.now() + 120_000)), 1)
  t.equal(await store.count('env-b'), 0, 'the deleted environment’s history is gone')
  t.equal(await db.collection('environmentHistory').countDocuments({ _id: { $regex: '^env-b' } } as never), 0, 'head and pages')
  t.equal(await store.count('env-a'), n + 1, 'another environment’s history stays')
})
