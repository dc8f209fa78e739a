// Rollout records on two servers of one database (the test app and a replica process, real
// FerretDB): a step claimed by a server that died is taken over once its claim is a lock lifetime
// old (JOBS_LOCK_LIFETIME_MS), not sooner and not a fixed minute later; and rollouts that ended
// before the retention age limit go with the job retention sweep, with their claims.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { Rollouts, type RolloutDoc } from '../../../plugins/upgrades/rollouts.ts'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'
import { startReplicaProcess } from '../../harness/replica.ts'

const LOCK_MS = 3000

/** A rollout of one empty wave (nothing to push): three steps, preview, previewed, succeeded. */
function rolloutDoc(overrides: Partial<RolloutDoc> = {}): RolloutDoc {
  const now = new Date()
  return {
    _id: randomUUID(),
    userId: 'someone',
    revision: 0,
    status: 'running',
    dryRun: true,
    strategy: 'merge',
    templatesCommit: 'c'.repeat(40),
    preview: true,
    waves: [{ pattern: '*', status: 'pending', environments: [] }],
    skipped: [],
    createdAt: now,
    updatedAt: now,
    ...overrides,
  }
}

t.test("a dead server's claimed step is taken over after one lock lifetime", async (t) => {
  // The test app runs no jobs (no rollout timer): the replica's timer moves the rollout on.
  const app = await startTestApp(t, { JOBS_PROCESS: 'false', JOBS_LOCK_LIFETIME_MS: String(LOCK_MS) })
  await startReplicaProcess(t, app, { JOBS_LOCK_LIFETIME_MS: String(LOCK_MS) })
  const db = app.app.mongo.db
  const doc = rolloutDoc()
  await db.collection<RolloutDoc>('upgradeRollouts').insertOne(doc)
  // The first step, claimed by a server that died before writing it; then the rollout is listed as running.
  const claimedAt = new Date()
  await db.collection<{ _id: string; at: Date }>('upgradeRolloutClaims').insertOne({ _id: `${doc._id}:1`, at: claimedAt })
  await db
    .collection<{ _id: string; ids: string[] }>('upgradeRolloutsRunning')
    .updateOne({ _id: 'running' }, { $addToSet: { ids: doc._id } }, { upsert: true })

  // Lock lifetime, plus the timer's second and a loaded machine's margin: far below the old minute.
  const done = await eventually(
    () => db.collection<RolloutDoc>('upgradeRollouts').findOne({ _id: doc._id }),
    (d) => d?.status === 'succeeded',
    { timeoutMs: LOCK_MS + 15_000, intervalMs: 100 },
  )
  t.equal(done?.status, 'succeeded', 'the rollout was moved on by the live server')
  t.equal(done?.revision, 3, 'each step taken once')
  const firstStep = await db.collection<{ _id: string; at: Date }>('upgradeRolloutClaims').findOne({ _id: `${doc._id}:1` })
  const waited = firstStep!.at.getTime() - claimedAt.getTime()
  t.ok(waited >= LOCK_MS, `the dead claim was honoured for a lock lifetime (${waited} ms)`)
})

t.test('rollouts that ended before the age limit go with the job retention sweep', async (t) => {
  const { app } = await startTestApp(t, { JOBS_PROCESS: 'false', RETENTION_MAX_AGE_MS: '3600000' })
  const db = app.mongo.db
  const rollouts = new Rollouts(db, LOCK_MS)
  const old = new Date(Date.now() - 2 * 3600_000)
  const ended = rolloutDoc({ status: 'succeeded', revision: 3, updatedAt: old })
  const stopped = rolloutDoc({ status: 'stopped', revision: 1, updatedAt: old })
  const recent = rolloutDoc({ status: 'succeeded', revision: 3 })
  const running = rolloutDoc({ updatedAt: old })
  await rollouts.collection.insertMany([ended, stopped, recent, running])
  const claims = db.collection<{ _id: string; at: Date }>('upgradeRolloutClaims')
  for (const doc of [ended, stopped, recent])
    for (let n = 1; n <= doc.revision; n++) await claims.insertOne({ _id: `${doc._id}:${n}`, at: doc.updatedAt })

  t.same((await app.jobs.sweep()).others, { rollouts: 2 }, 'the two that ended two hours ago go')
  const left = await rollouts.collection.find({}, { projection: { _id: 1 } }).toArray()
  t.same(left.map((d) => d._id).sort(), [recent._id, running._id].sort(), 'the recent one and the running one stay')
  const claimsLeft = await claims.find({}).toArray()
  t.same(claimsLeft.map((c) => c._id).sort(), [1, 2, 3].map((n) => `${recent._id}:${n}`).sort(), 'with the claims of those that stay')
  t.same((await app.jobs.sweep()).others, { rollouts: 0 }, 'a second sweep finds nothing more')
})
