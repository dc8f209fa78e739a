// The embedded store is busy (FerretDB on SQLite: one writer at a time; a write waits up to its busy
// timeout, 10 s, for the lock, then fails with SQLITE_BUSY). A write that meets the lock of
// another client answers 503 SERVICE_UNAVAILABLE in the envelope, never 500, and the same write
// succeeds once the store is free. (Seen in the data-scale benchmark: an environment update at
// 100,000 environments timed out, and the next one met its still running write.)
import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { startTestApp } from '../harness/app.ts'
import { environmentBody } from '../harness/jobs.ts'

/** Holds an exclusive transaction on the SQLite file argv[1] for argv[2] seconds; prints "locked" once it holds it. */
const HOLD_LOCK = [
  'import sqlite3, sys, time',
  'c = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)',
  "c.execute('BEGIN EXCLUSIVE')",
  "print('locked', flush=True)",
  'time.sleep(float(sys.argv[2]))',
].join('\n')

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

if (process.env.MONGODB_URI) {
  t.skip('FerretDB on SQLite only (MongoDB has no database-wide write lock)', () => {})
} else {
  t.test("a write meeting another writer's lock: 503, then it succeeds", async (t) => {
    const { url, db, auth } = await startTestApp(t)
    const headers = { ...auth('dev'), 'content-type': 'application/json' }
    const put = (domain: string) => fetch(`${url}/api/environments/${id}`, { method: 'PUT', headers, body: JSON.stringify({ domain }) })
    const created = await fetch(`${url}/api/environments`, { method: 'POST', headers, body: JSON.stringify(environmentBody()) })
    const id = ((await created.json()) as { data: { id: string } }).data.id

    // Another writer holds the store's write lock (an exclusive SQLite transaction on the database
    // file, held 25 s: longer than the 10 s a waiting write gives up after). Held by python3's sqlite3
    // so the test does not depend on how long some large write happens to take on this machine.
    const file = path.join(db.server!.dataDir, `${new URL(db.uri).pathname.slice(1)}.sqlite`)
    t.ok(existsSync(file), `the store's file ${file}`)
    const holder = spawn('python3', ['-c', HOLD_LOCK, file, '25'], { stdio: ['ignore', 'pipe', 'inherit'] })
    t.teardown(() => holder.kill())
    await new Promise<void>((resolve, reject) => {
      holder.stdout.once('data', () => resolve())
      holder.once('exit', (code) => reject(new Error(`the lock holder ended (${code})`)))
    })

    const busy = await put('busy.example.com')
    const body = (await busy.json()) as { error?: { code: string }; meta?: unknown }
    t.equal(busy.status, 503, `the store was busy: ${JSON.stringify(body)}`)
    t.equal(body.error?.code, 'SERVICE_UNAVAILABLE')
    t.ok(body.meta, 'in the envelope')

    holder.kill()
    // Once the lock is released, the same write succeeds (only 503s meanwhile).
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
