// No status read builds the upgrade status of many environments: the pushes keep the owner's
// document current (the first push builds it, every 64th folds those recorded since), and the
// environment lines a read finds stale in numbers (a first read, a new catalog) are built in the
// background while the read answers within a second with what is there, saying in a Warning how
// many environments are still being checked. The records' read is held (a gate) so that the build
// is certainly still running when the first read answers. Real FerretDB.
import t from 'tap'
import { processorInput } from '@ies/server/jobs/generation/transform'
import { STATUS_BUILDING_WARNING } from '../../../plugins/upgrades/index.ts'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'
import { createEnvironment, environmentBody } from '../../harness/jobs.ts'

// More than the status reads inline (SCAN_FROM in plugins/upgrades/upgrade-status.ts).
const ENVIRONMENTS = 130

t.test('a first status read of many environments answers at once and says what is pending', async (t) => {
  const { app, url, auth } = await startTestApp(t)
  const headers = { ...auth('dev'), 'content-type': 'application/json' }
  const ids: string[] = []
  for (let i = 0; i < ENVIRONMENTS; i++) ids.push((await createEnvironment({ url, auth }, environmentBody({ name: `build-${i}` }))).id)
  const userId = (await app.mongo.db.collection<{ _id: string; userId: string }>('environments').findOne({ _id: ids[0] }))!.userId
  const records = app.jobs.pushing.records
  for (const [i, id] of ids.entries()) {
    const env = (await app.environments.get(userId, id))!
    await records.record({
      environmentId: id,
      userId,
      jobId: `job-${i}`,
      commit: 'c'.repeat(40),
      branch: 'main',
      templatesCommit: 'an-older-templates-version',
      format: 'terraform',
      options: { includeBackend: true, includeChart: true, includeGitops: true },
      input: processorInput(env),
      ofEnvironment: true,
    })
  }
  const doc = await app.mongo.db.collection<{ _id: string; seq?: number }>('upgradeStatus').findOne({ _id: userId })
  t.ok(doc && (doc.seq ?? 0) >= ENVIRONMENTS - 64, `the pushes built and folded the document before any read (seq ${doc?.seq})`)

  // The owner's records are held until the gate opens: the lines cannot be built before.
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const allRecords = app.environments.allRecords.bind(app.environments)
  app.environments.allRecords = async (owner) => {
    await gate
    return allRecords(owner)
  }
  const status = async () => {
    const res = await fetch(`${url}/api/environments/upgrades`, { headers })
    return { status: res.status, warning: res.headers.get('warning'), data: ((await res.json()) as any).data as unknown[] }
  }
  const t0 = Date.now()
  const first = await status()
  const took = Date.now() - t0
  t.equal(first.status, 200)
  t.ok(took < 15_000, `answered without waiting for the lines (${took} ms; held, they would never come)`)
  t.equal(first.warning, `${STATUS_BUILDING_WARNING} ${ENVIRONMENTS} environments are still being checked; read again shortly"`)
  t.same(first.data, [], 'no line yet: none listed')
  const again = await status()
  t.match(again.warning, STATUS_BUILDING_WARNING, 'a read while the build runs joins it and says so too')

  open()
  const done = await eventually(status, (s) => s.warning === null, { timeoutMs: 60_000, intervalMs: 200 })
  t.equal(done.warning, null, 'the build done: no warning')
  t.equal(done.data.length, ENVIRONMENTS, 'every environment listed (behind its templates)')
})
