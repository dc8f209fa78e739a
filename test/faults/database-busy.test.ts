// The embedded store is busy (FerretDB on SQLite: one writer at a time; a write waits up to its busy
// timeout, 10 s, for the lock, then fails with SQLITE_BUSY). A write that meets a long write of
// another client answers 503 SERVICE_UNAVAILABLE in the envelope, never 500, and the same write
// succeeds once the store is free. (Seen in the data-scale benchmark: an environment update at
// 100,000 environments timed out, and the next one met its still running write.)
import t from 'tap'
import { MongoClient } from 'mongodb'
import { startTestApp } from '../harness/app.ts'
import { environmentBody } from '../jobs/fixtures.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

if (process.env.MONGODB_URI) {
  t.skip('FerretDB on SQLite only (MongoDB has no database-wide write lock)', () => {})
} else {
  t.test('a write meeting a long write: 503, then it succeeds', async (t) => {
    const { url, db, auth } = await startTestApp(t)
    const headers = { ...auth('dev'), 'content-type': 'application/json' }
    const put = (domain: string) => fetch(`${url}/api/environments/${id}`, { method: 'PUT', headers, body: JSON.stringify({ domain }) })
    const created = await fetch(`${url}/api/environments`, { method: 'POST', headers, body: JSON.stringify(environmentBody()) })
    const id = ((await created.json()) as { data: { id: string } }).data.id

    // Another client's long write in the same database: an update of every row of a large table,
    // which holds SQLite's write lock far longer than the 10 s a waiting write gives up after. The
    // store is restarted below to end it.
    const other = await MongoClient.connect(db.uri)
    t.teardown(() => other.close())
    const bulk = other.db().collection<{ _id: string; v: string; w?: number }>('bulk')
    for (let i = 0; i < 150; i++) {
      await bulk.insertMany(Array.from({ length: 1000 }, (_, j) => ({ _id: `r${i}-${j}`, v: 'x'.repeat(100) })))
    }
    const long = bulk.updateMany({}, { $set: { w: 1 } }).catch(() => 'ended with the store')
    await sleep(300)

    const busy = await put('busy.example.com')
    const body = (await busy.json()) as { error?: { code: string }; meta?: unknown }
    t.equal(busy.status, 503, `the store was busy: ${JSON.stringify(body)}`)
    t.equal(body.error?.code, 'SERVICE_UNAVAILABLE')
    t.ok(body.meta, 'in the envelope')

    await db.server!.restart()
    await long
    // The server finds the store again by itself: the same write succeeds (only 503s meanwhile).
    const statuses: number[] = []
    for (let i = 0; i < 60 && statuses.at(-1) !== 200; i++) {
      const again = await put('free.example.com')
      statuses.push(again.status)
      await again.arrayBuffer()
      if (again.status !== 200) await sleep(500)
    }
    t.equal(statuses.at(-1), 200, 'once the store is free, the same write succeeds')
    t.same(
      statuses.filter((s) => s !== 200 && s !== 503),
      [],
      `nothing but 503 before it (${statuses.join(' ')})`,
    )
  })
}
