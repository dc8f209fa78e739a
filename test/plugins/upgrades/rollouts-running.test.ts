// The running rollouts the timer moves on are listed in one document read by `_id` (on the
// embedded store any other filter reads the whole table, which keeps every rollout): a new rollout
// joins the list, one that has ended leaves it on the next read. Real FerretDB.
import t from 'tap'
import { startTestDatabase } from '../../harness/database.ts'
import { Rollouts } from '../../../plugins/upgrades/rollouts.ts'

t.test('running rollouts are listed by id and leave the list when they end', async (t) => {
  const db = (await startTestDatabase(t)).client.db()
  const rollouts = new Rollouts(db, 10_000)
  const make = () =>
    rollouts.create({ userId: 'u', dryRun: true, strategy: 'merge', templatesCommit: 'c', preview: false, waves: [], skipped: [] })
  const [a, b] = [await make(), await make()]
  t.same((await rollouts.running()).map((r) => r._id).sort(), [a._id, b._id].sort(), 'both running')

  await rollouts.collection.updateOne({ _id: a._id }, { $set: { status: 'stopped' } })
  t.same(
    (await rollouts.running()).map((r) => r._id),
    [b._id],
    'an ended rollout is not returned',
  )
  const list = await db.collection<{ _id: string; ids: string[] }>('upgradeRolloutsRunning').findOne({ _id: 'running' })
  t.same(list?.ids, [b._id], 'and leaves the list')
})
