// Approvals benchmark (not a test): `npx tsx scripts/bench/approvals-list.ts [--sizes 1000,10000] [--waiting 10]`
//
// What reading the pushes awaiting approval costs on the embedded store (FerretDB on SQLite) as the
// job queue fills up: the way it was (`jobs.find({ status: 'awaiting-approval' })`, which FerretDB
// answers by reading and decoding the whole queue) beside the way it is (the small
// `jobsAwaitingApproval` collection read whole, then each job by `_id`), with --waiting pushes held
// among `size` queued jobs, side by side in one run on one database. Both are read by GET
// /api/approvals and by every replica's approvals sweep.
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { MongoClient } from 'mongodb'
import { JobStore, type JobRecord } from '../../server/src/jobs/queue/store.ts'
import { startTestDatabase } from '../../test/harness/database.ts'
import { insertInBatches, stats } from './team-scale.ts'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    waiting: { type: 'string', default: '10' },
    samples: { type: 'string', default: '20' },
  },
})
const SIZES = values.sizes.split(',').map(Number)
const WAITING = Number(values.waiting)
const SAMPLES = Number(values.samples)

const teardowns: (() => unknown)[] = []
try {
  const database = await startTestDatabase({ teardown: (fn) => teardowns.push(fn) })
  const client = await new MongoClient(database.uri).connect()
  teardowns.push(() => client.close())
  const db = client.db()
  const store = new JobStore(db)
  await store.init()
  const approval = { requestedBy: { userId: 'u', username: 'dev' }, teamId: 't', expiresAt: new Date(Date.now() + 86_400_000) }
  for (let i = 0; i < WAITING; i++)
    await store.create('push', 'u', 'env', { format: 'terraform', options: {} } as JobRecord['params'], approval)

  const time = async (read: () => Promise<unknown>) => {
    const samples: number[] = []
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now()
      await read()
      samples.push(performance.now() - started)
    }
    return stats(samples)
  }
  const queued = (n: number): JobRecord[] =>
    Array.from({ length: n }, () => ({
      _id: randomUUID(),
      type: 'generate',
      userId: 'u',
      environmentId: randomUUID(),
      status: 'queued',
      params: { format: 'terraform', options: {} } as JobRecord['params'],
      attempts: 0,
      createdAt: new Date(),
      startedAt: null,
      finishedAt: null,
    }))
  let size = 0
  console.log(`${WAITING} pushes awaiting approval; median and p95 of ${SAMPLES} reads (ms)`)
  console.log('queued jobs   status scan (before)   waiting collection + _id reads (now)   ratio')
  for (const target of SIZES) {
    await insertInBatches(db, 'jobs', queued(target - size))
    size = target
    const before = await time(() => store.collection.find({ status: 'awaiting-approval' }, { projection: { processorInput: 0 } }).toArray())
    const now = await time(async () => Promise.all((await store.awaitingApproval()).map((e) => store.byId(e._id))))
    const cell = (s: { median: number; p95: number }) => `${s.median.toFixed(1)} / ${s.p95.toFixed(1)}`
    console.log(
      `${String(size).padStart(11)}   ${cell(before).padStart(20)}   ${cell(now).padStart(36)}   ${(before.median / now.median).toFixed(1)}x`,
    )
  }
} finally {
  for (const fn of teardowns.reverse()) await fn()
}
