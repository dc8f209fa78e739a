// The generated files IES keeps for the next push's base (server/src/jobs/push/push-bases.ts): the
// last KEPT_PER_ENVIRONMENT generations of an environment, found by the generation record; older ones
// are pruned by their ids (listed per environment, so nothing is found by another field), and the
// environment's removal takes them all.
import t from 'tap'
import { KEPT_PER_ENVIRONMENT, PushBases } from '../../../../server/src/jobs/push/push-bases.ts'
import type { GenerationRecord } from '../../../../server/src/jobs/push/generation-record.ts'
import { startTestDatabase } from '../../../harness/database.ts'

const record = (environmentId: string, templatesCommit: string): GenerationRecord => ({
  schemaVersion: 1,
  environmentId,
  environmentName: 'shop',
  templatesCommit,
  format: 'terraform',
  options: { includeBackend: true, includeChart: false, includeGitops: false },
  input: { name: 'shop' } as GenerationRecord['input'],
  generatedAt: new Date().toISOString(),
  iesVersion: 'test',
})
const files = (text: string) => [{ path: 'terraform/main.tf', content: Buffer.from(text), mode: 0o644 }]

t.test('the last generations of an environment are kept, older ones pruned, all removed with it', async (t) => {
  const db = await startTestDatabase(t)
  const bases = new PushBases(db.client.db())
  const total = KEPT_PER_ENVIRONMENT + 2
  for (let i = 0; i < total; i++) t.equal(await bases.keep(files(`v${i}`), record('env-a', `c${i}`)), true)
  await bases.keep(files('other'), record('env-b', 'c0'))

  const stored = db.client.db().collection('pushBases')
  t.equal(await stored.countDocuments({ environmentId: 'env-a' }), KEPT_PER_ENVIRONMENT, `only the last ${KEPT_PER_ENVIRONMENT} stay`)
  t.equal(await bases.files(record('env-a', 'c0')), null, 'the oldest is gone')
  t.equal((await bases.files(record('env-a', `c${total - 1}`)))?.[0]?.content.toString(), `v${total - 1}`, 'the newest is there')

  await bases.keep(files('v2 again'), record('env-a', 'c2'))
  t.equal(await stored.countDocuments({ environmentId: 'env-a' }), KEPT_PER_ENVIRONMENT, 'keeping a generation again replaces it')

  await bases.removeForEnvironment('env-a')
  t.equal(await stored.countDocuments({ environmentId: 'env-a' }), 0, 'removed with the environment')
  t.equal(
    await db.client
      .db()
      .collection('pushBaseIndex')
      .countDocuments({ _id: 'env-a' as never }),
    0,
    'and its list',
  )
  t.equal(await stored.countDocuments({ environmentId: 'env-b' }), 1, "another environment's stay")
})
