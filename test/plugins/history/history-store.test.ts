// The history store on FerretDB (plugins/history/store.ts): concurrent appends in one server take
// numbers 1..n without a gap or a repeat, written together while they wait; two stores on one
// database appending at once share the numbers without a gap, a repeat or a loss; a range reads
// newest first; a large configuration reads back whole; the export window selects by time; pruning
// removes only what retention let go; a history written as pages (before entries had documents of
// their own) reads back, also through the export, and its next entries follow it.
import t from 'tap'
import { MongoClient } from 'mongodb'
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
  const database = await startTestDatabase(t)
  const db = database.client.db()
  // The store's writes, counted by command.
  const watched = await new MongoClient(database.uri, { monitorCommands: true }).connect()
  t.teardown(() => watched.close())
  const inserts: number[] = []
  let collisions = 0
  watched.on('commandStarted', (e) => {
    if (e.commandName === 'insert' && e.command.insert === 'environmentHistory') inserts.push((e.command.documents as unknown[]).length)
  })
  watched.on('commandSucceeded', (e) => {
    if (e.commandName === 'insert' && (e.reply as { writeErrors?: unknown }).writeErrors) collisions++
  })
  const store = new HistoryStore(watched.db(db.databaseName))
  await store.indexes()
  const n = PAGE_SIZE + 10

  const ids = await Promise.all(Array.from({ length: n }, () => store.append(entry('env-a'))))
  t.same(
    [...ids].sort((a, b) => a - b),
    Array.from({ length: n }, (_, i) => i + 1),
    'every append its own number, none skipped',
  )
  t.equal(await store.count('env-a'), n)
  t.ok(inserts.length < n / 2, `appends that waited their turn were written together (${n} entries, ${inserts.length} inserts)`)
  const stored = await store.range('env-a', 1, n)
  t.same(
    stored.map((e) => e.id),
    Array.from({ length: n }, (_, i) => n - i),
    'each number once',
  )
  const across = await store.range('env-a', PAGE_SIZE - 4, PAGE_SIZE + 5)
  t.same(
    across.map((e) => e.id),
    Array.from({ length: 10 }, (_, i) => PAGE_SIZE + 5 - i),
    'a range, newest first',
  )
  t.same(across[0].changes, [{ field: 'domain', before: 'a', after: 'b' }], 'the diff reads back as it was recorded')
  t.same(across[0].configuration, { domain: 'b', services: { eks: { enabled: true } } })
  t.equal(await store.entry('env-a', n + 1), null, 'no entry past the end')

  const helm = { ingress: { enabled: true, customValues: true, values: 'x: 1\n'.repeat(10_000) } }
  const large = await store.append({ ...entry('env-a'), configuration: { helmCharts: helm } })
  t.same((await store.entry('env-a', large))?.configuration, { helmCharts: helm }, 'a large configuration reads back whole')

  // Full pages are sealed into one document each (the large entry stays out of its page), and read
  // from it; a page whose sealer died reads from its entries' documents.
  await Promise.all(Array.from({ length: 2 * PAGE_SIZE - large }, () => store.append(entry('env-a'))))
  const history = db.collection<{ _id: string; entries: { id: number }[] }>('environmentHistory')
  const sealed = await Promise.all([0, 1].map((n) => history.findOne({ _id: `env-a:p${n}` })))
  t.same(
    sealed.map((p) => p?.entries.length),
    [PAGE_SIZE, PAGE_SIZE - 1],
    'two full pages sealed, the large entry left out',
  )
  t.ok(JSON.stringify(sealed[1]).length < 50_000, 'the sealed page holds the entry without its configuration')
  const read = (await store.range('env-a', 1, 2 * PAGE_SIZE)).map((e) => [e.id, e.configuration])
  t.same(read.at(-large)?.[1], { helmCharts: helm }, 'the large entry, from its own document')
  await history.deleteOne({ _id: 'env-a:p0' })
  t.same(
    (await store.range('env-a', 1, 2 * PAGE_SIZE)).map((e) => [e.id, e.configuration]),
    read,
    'an unsealed page reads the same',
  )
  t.same(
    read.map(([id]) => id),
    Array.from({ length: 2 * PAGE_SIZE }, (_, i) => 2 * PAGE_SIZE - i),
  )
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
  t.equal(
    await db.collection('environmentHistory').countDocuments({ _id: { $regex: '^env-b' } } as never),
    0,
    'head, entries and its retention',
  )
  t.equal(await store.count('env-a'), 2 * PAGE_SIZE, 'another environment’s history stays')

  t.test('two stores on one database append to one history at once', async (t) => {
    const other = new HistoryStore(db)
    const before = inserts.length
    const requests = Array.from({ length: 200 }, (_, i) => `r${i}`)
    // Each store's appends arrive in small groups, so both keep meeting the other's numbers.
    const numbers = await Promise.all(
      requests.map(async (requestId, i) => {
        await new Promise((resolve) => setImmediate(resolve))
        return (i % 2 ? other : store).append({ ...entry('env-c'), requestId })
      }),
    )
    t.same(
      [...numbers].sort((a, b) => a - b),
      Array.from({ length: requests.length }, (_, i) => i + 1),
      'numbers 1..n, none skipped, none twice',
    )
    const stored = await other.range('env-c', 1, requests.length + 5)
    t.same(
      stored.map((e) => e.requestId),
      [...requests].sort((a, b) => numbers[requests.indexOf(b)] - numbers[requests.indexOf(a)]),
      'each entry stored once, under the number its append answered',
    )
    t.equal(await store.count('env-c'), requests.length)
    t.ok(inserts.length > before, 'the first store wrote')

    // Another server took 203 while this one's hint is behind (on FerretDB two raises of the hint at
    // once may leave the lower): a batch of five meets it mid-insert and goes on after it.
    const history = db.collection<{ _id: string; count?: number }>('environmentHistory')
    const { changes, configuration, ...theirs } = entry('env-c')
    void [changes, configuration]
    await history.insertOne({ _id: 'env-c:n203', ...theirs, id: 203, requestId: 'theirs' } as never)
    await history.updateOne({ _id: 'env-c' }, { $set: { count: 190 } })
    const seen = collisions
    const batch = await Promise.all(Array.from({ length: 5 }, (_, i) => store.append({ ...entry('env-c'), requestId: `mine-${i}` })))
    t.same(batch, [201, 202, 204, 205, 206], 'the taken number skipped, no other')
    t.ok(collisions > seen, `the store met taken numbers (${collisions - seen})`)
    t.same((await store.range('env-c', 199, 210)).map((e) => e.requestId).reverse(), [
      requests[numbers.indexOf(199)],
      requests[numbers.indexOf(200)],
      'mine-0',
      'mine-1',
      'theirs',
      'mine-2',
      'mine-3',
      'mine-4',
    ])
    t.equal(await store.count('env-c'), 206, 'the count past a hint left behind')
  })

  t.test('a history written as pages reads back, and its next entries follow it', async (t) => {
    const history = db.collection<{ _id: string }>('environmentHistory')
    const at = (i: number) => new Date(Date.UTC(2021, 0, 1, 0, i))
    const legacy = (id: number) => ({
      id,
      environmentId: 'env-l',
      environmentName: 'legacy',
      kind: 'update',
      at: at(id),
      actor: { userId: 'u1', username: 'dev' },
      requestId: `old-${id}`,
      changes: JSON.stringify([{ field: 'domain', before: 'a', after: `${id}` }]),
      configuration: JSON.stringify({ domain: `${id}` }),
    })
    const count = PAGE_SIZE + 2
    const all = Array.from({ length: count }, (_, i) => legacy(i + 1))
    // The last one large: its diff and configuration beside its page.
    const { changes, configuration, ...detached } = all[count - 1]
    await history.insertMany([
      { _id: 'env-l', count, version: 7, environmentName: 'legacy' },
      { _id: 'env-l:0', environmentId: 'env-l', page: 0, entries: all.slice(0, PAGE_SIZE), firstAt: at(1), lastAt: at(PAGE_SIZE) },
      {
        _id: 'env-l:1',
        environmentId: 'env-l',
        page: 1,
        entries: [all[PAGE_SIZE], { ...detached, detached: true }],
        firstAt: at(PAGE_SIZE + 1),
        lastAt: at(count),
      },
      { _id: `env-l:e${count}`, environmentId: 'env-l', changes, configuration },
    ] as never[])
    t.equal(await store.count('env-l'), count)
    t.same(
      (await store.range('env-l', PAGE_SIZE - 1, count)).map((e) => [e.id, e.configuration]),
      [PAGE_SIZE - 1, PAGE_SIZE, PAGE_SIZE + 1, count].reverse().map((id) => [id, { domain: `${id}` }]),
      'entries of two pages, the detached one whole',
    )
    const next = await store.append({ ...entry('env-l', at(count + 1)), environmentName: 'legacy' })
    t.equal(next, count + 1, 'the next entry takes the next number')
    t.same(
      (await store.range('env-l', count - 1, count + 1)).map((e) => e.id),
      [count + 1, count, count - 1],
    )
    const exported = []
    for await (const e of store.between(at(0), at(count + 2))) if (e.environmentId === 'env-l') exported.push(e.id)
    t.same(
      exported,
      Array.from({ length: count + 1 }, (_, i) => i + 1),
      'the export: the pages, then the entries',
    )
    const whole = []
    for await (const e of store.ofEnvironment('env-l', at(0), at(count + 2))) whole.push(e.id)
    t.same(whole, exported, 'one environment’s export')
  })
})
