// The embedded store serves `{ _id }` lookups from its `_id` index. FerretDB 1.24 as
// released wrote them with another expression than its index, so SQLite read the whole table;
// scripts/build-ferretdb.sh patches that. This checks the built binary: the query plan of a find by
// `_id` names the index, and reads, updates and deletes by `_id` of the last row of a large table
// cost a fraction of a scan (5,000 documents of 1 KB: about 0.3 s).
import t from 'tap'
import { startTestDatabase } from '../harness/database.ts'

t.test('finds, updates and deletes by _id use the index', async (t) => {
  const db = await startTestDatabase(t)
  if (!db.server) {
    t.pass('MONGODB_URI is set: MongoDB always serves _id from its index')
    return
  }
  const collection = db.client.db().collection<{ _id: string; body: string; n: number }>('id_index_probe')
  const rows = 5000
  await collection.insertMany(Array.from({ length: rows }, (_, i) => ({ _id: `row-${i}`, body: 'x'.repeat(1000), n: i })))
  const plan = await collection.find({ _id: 'row-1' }).explain()
  t.match(JSON.stringify(plan.queryPlanner), /USING INDEX \S+__id_/, 'the plan searches the _id index')

  const median = async (run: (i: number) => Promise<unknown>, runs = 9) => {
    const times: number[] = []
    for (let i = 0; i < runs; i++) {
      const started = performance.now()
      await run(i)
      times.push(performance.now() - started)
    }
    return times.sort((a, b) => a - b)[runs >> 1]
  }
  const last = `row-${rows - 1}`
  const scan = await median(() => collection.findOne({ _id: last, n: rows - 1 }), 3)
  const lookups = {
    find: await median(() => collection.findOne({ _id: last })),
    'find of a missing id': await median(() => collection.findOne({ _id: 'missing' })),
    update: await median((i) => collection.updateOne({ _id: last }, { $set: { n: i } })),
    replace: await median((i) => collection.replaceOne({ _id: last }, { body: 'y', n: i })),
    'insert and delete': await median(async (i) => {
      await collection.insertOne({ _id: `extra-${i}`, body: '', n: 0 })
      await collection.deleteOne({ _id: `extra-${i}` })
    }),
  }
  t.comment(
    `medians (ms): a filter with another field (a scan) ${scan.toFixed(1)}; ${JSON.stringify(lookups, (_, v) => (typeof v === 'number' ? +v.toFixed(2) : v))}`,
  )
  for (const [what, ms] of Object.entries(lookups)) {
    t.ok(ms * 4 < scan, `${what} by _id (${ms.toFixed(1)} ms) costs a fraction of a scan (${scan.toFixed(1)} ms)`)
  }
})
