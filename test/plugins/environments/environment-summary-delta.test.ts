// A large summary's delta (plugins/environments/summaries.ts, summary-delta.ts) on a real FerretDB:
// writes go to the delta and leave the summary alone until the delta passes its limit and is
// folded in; replaces and removes hold across a fold; two writers without a shared lock (two
// replicas) racing a fold lose nothing; a lost delta, or one naming a summary never written, is
// rebuilt from the records.
import t from 'tap'
import type { Collection, Db } from 'mongodb'
import { EnvironmentSummaries } from '../../../plugins/environments/summaries.ts'
import type { StoredEnvironment } from '../../../plugins/environments/stored-form.ts'
import { startTestDatabase } from '../../harness/database.ts'

const FOLD = 4
const OWNER = 'owner-1'

interface Stored {
  _id: string
  entries: string
  revision: number
  delta?: boolean
  base?: number
}

/** A record as the summary reads it (the fields of its entry). */
const record = (i: number, version = 1, name = `env-${i}`) => {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i))
  return {
    _id: `id-${i}`,
    userId: OWNER,
    name,
    provider: 'aws',
    region: 'eu-west-1',
    status: 'draft',
    createdAt: at,
    updatedAt: at,
    version,
  }
}

/** A summaries writer (a replica: its own lock, none shared) and the records it summarizes. */
async function setup(db: Db, replicas = 1) {
  const environments = db.collection('environments') as unknown as Collection<StoredEnvironment>
  const serial = () => {
    let tail: Promise<unknown> = Promise.resolve()
    return <T>(_key: string, fn: () => Promise<T>): Promise<T> => {
      const run = tail.then(fn, fn)
      tail = run.catch(() => {})
      return run
    }
  }
  const writers = Array.from({ length: replicas }, () => new EnvironmentSummaries(db, environments, serial(), FOLD))
  const docs = db.collection<Stored>('environment_summaries')
  const stored = async () => ({ head: await docs.findOne({ _id: OWNER }), delta: await docs.findOne({ _id: `${OWNER}:delta` }) })
  /** Writes the record and, through writer `w`, its entry. */
  const save = async (rec: ReturnType<typeof record>, w = 0) => {
    await environments.replaceOne({ _id: rec._id }, rec as never, { upsert: true })
    await writers[w].putLocking(rec as never)
  }
  const drop = async (id: string, w = 0) => {
    await environments.deleteOne({ _id: id })
    await writers[w].remove(OWNER, id)
  }
  const listed = async (w = 0) =>
    (await writers[w].read(OWNER)).entries.map((e) => `${e.id}@${e.version}`).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  return { environments, writers, docs, stored, save, drop, listed }
}

t.test('writes go to the delta; the one that passes the limit folds it into the summary', async (t) => {
  const { db } = { db: (await startTestDatabase(t)).client.db() }
  const s = await setup(db)
  for (let i = 1; i <= FOLD; i++) await s.save(record(i))
  let { head, delta } = await s.stored()
  t.equal(head?.delta, true, `a summary of ${FOLD} entries has a delta`)
  t.same(delta && { entries: delta.entries, base: delta.base }, { entries: '', base: head?.revision }, 'started empty, on this summary')
  const summaryText = head!.entries

  for (let i = FOLD + 1; i <= 2 * FOLD; i++) await s.save(record(i))
  ;({ head, delta } = await s.stored())
  t.equal(head!.entries, summaryText, `${FOLD} creates left the summary as it was`)
  t.equal(delta!.entries.split('\n').length, FOLD, 'and are in the delta')
  t.same(
    await s.listed(),
    Array.from({ length: 2 * FOLD }, (_, i) => `id-${i + 1}@1`),
    'a read applies the delta',
  )

  await s.save(record(2 * FOLD + 1))
  ;({ head, delta } = await s.stored())
  t.equal(head!.entries.split('\n').length, 2 * FOLD + 1, 'the next write folded the delta into the summary, which holds every entry')
  t.same(
    delta && { entries: delta.entries, base: delta.base, revision: delta.revision },
    { entries: '', base: head!.revision, revision: head!.revision },
    'and emptied the delta, naming the folded revision',
  )
  t.same(
    await s.listed(),
    Array.from({ length: 2 * FOLD + 1 }, (_, i) => `id-${i + 1}@1`),
  )

  await s.save(record(2 * FOLD + 2))
  ;({ head, delta } = await s.stored())
  t.same([delta!.base, delta!.entries.split('\n').length], [head!.revision, 1], 'the next write starts a delta on the folded summary')
})

t.test('replaces and removes hold across a fold; versions only move forward', async (t) => {
  const db = (await startTestDatabase(t)).client.db()
  const s = await setup(db)
  for (let i = 1; i <= FOLD; i++) await s.save(record(i))
  await s.save(record(1, 2, 'renamed')) // replace: in the delta
  await s.drop('id-2') // remove of an entry of the summary: a tombstone
  await s.save(record(5))
  await s.drop('id-5') // remove of an entry only the delta holds
  t.same(await s.listed(), ['id-1@2', 'id-3@1', 'id-4@1'], 'before the fold')
  const { head: before } = await s.stored()
  await s.writers[0].put(record(1, 1) as never) // an older version arrives late: ignored
  await s.save(record(3, 3))
  t.equal((await s.stored()).head!.revision, before!.revision, 'the delta holds one change per environment')
  await s.save(record(6)) // past the limit: folded
  const { head } = await s.stored()
  t.ok(head!.revision > before!.revision, 'folded')
  t.same(await s.listed(), ['id-1@2', 'id-3@3', 'id-4@1', 'id-6@1'], 'after the fold')
  t.notOk(head!.entries.includes('id-2\t') || head!.entries.includes('id-5\t'), 'the removed are out of the summary')
  t.match(head!.entries, /id-1\trenamed\t/, 'the replaced entry is the new one')

  await s.save(record(7))
  await s.drop('id-4')
  await s.writers[0].put(record(3, 2) as never) // older than the summary's version 3: ignored on read
  t.same(await s.listed(), ['id-1@2', 'id-3@3', 'id-6@1', 'id-7@1'], 'a delta over the folded summary')
  t.equal((await s.stored()).head!.revision, head!.revision, 'which stays as folded')
})

t.test('two writers without a shared lock racing folds lose nothing', async (t) => {
  const db = (await startTestDatabase(t)).client.db()
  const s = await setup(db, 2)
  for (let i = 1; i <= FOLD; i++) await s.save(record(i))
  const N = 40
  const ids = Array.from({ length: N }, (_, i) => i + FOLD + 1)
  // Each replica writes its own environments, interleaved: folds happen every FOLD writes.
  await Promise.all(
    [0, 1].map((w) =>
      (async () => {
        for (const i of ids.filter((i) => i % 2 === w)) await s.save(record(i), w)
      })(),
    ),
  )
  const all = Array.from({ length: N + FOLD }, (_, i) => `id-${i + 1}@1`)
  t.same(await s.listed(0), all, 'every create is in the summary')
  t.same(await s.listed(1), all, 'as either replica reads it')
  // Removes and replaces racing folds the same way.
  await Promise.all(
    [0, 1].map((w) =>
      (async () => {
        for (const i of ids.filter((i) => i % 2 === w)) await (i % 4 < 2 ? s.drop(`id-${i}`, w) : s.save(record(i, 2), w))
      })(),
    ),
  )
  const left = all.map((e, i) => [e, i + 1] as const).flatMap(([e, i]) => (i <= FOLD ? [e] : i % 4 < 2 ? [] : [`id-${i}@2`]))
  t.same(await s.listed(1), left, 'every remove and replace too')
  const { head } = await s.stored()
  t.ok(head!.revision > FOLD + 2 * FOLD, 'the summary was folded meanwhile')
})

t.test('a lost delta, or one naming a summary never written, is rebuilt from the records', async (t) => {
  const db = (await startTestDatabase(t)).client.db()
  const s = await setup(db)
  for (let i = 1; i <= FOLD + 2; i++) await s.save(record(i))
  const all = Array.from({ length: FOLD + 2 }, (_, i) => `id-${i + 1}@1`)
  await s.docs.deleteOne({ _id: `${OWNER}:delta` })
  t.same(await s.listed(), all, 'a read rebuilds the summary when its delta is gone')
  let { head, delta } = await s.stored()
  t.equal(head!.entries.split('\n').length, FOLD + 2, 'stored whole')
  t.equal(delta!.base, head!.revision, 'with a delta again')

  await s.docs.deleteOne({ _id: `${OWNER}:delta` })
  await s.save(record(FOLD + 3))
  t.same(await s.listed(), [...all, `id-${FOLD + 3}@1`], 'a write rebuilds it too')

  // A writer that started a delta and died before writing the summary it names.
  ;({ head, delta } = await s.stored())
  await s.docs.updateOne({ _id: `${OWNER}:delta` }, { $set: { base: head!.revision + 5, revision: head!.revision + 5 } })
  await s.environments.deleteOne({ _id: 'id-1' }) // a change only the records know
  t.same(await s.listed(), [...all.slice(1), `id-${FOLD + 3}@1`], 'after waiting for it, rebuilt')
})

t.test("a reader that kept a large summary reads only its delta, and follows another replica's writes and folds", async (t) => {
  const db = (await startTestDatabase(t)).client.db()
  const s = await setup(db, 2)
  for (let i = 1; i <= FOLD; i++) await s.save(record(i))
  const reader = s.writers[1]
  let summaryReads = 0
  const findOne = reader.store.collection.findOne.bind(reader.store.collection)
  reader.store.collection.findOne = ((filter: { _id?: string }, ...rest: unknown[]) => {
    if (filter?._id === OWNER) summaryReads++
    return (findOne as (...args: unknown[]) => unknown)(filter, ...rest)
  }) as typeof reader.store.collection.findOne
  const expect = (n: number, skip: number[] = []) =>
    Array.from({ length: n }, (_, i) => i + 1)
      .filter((i) => !skip.includes(i))
      .map((i) => `id-${i}@1`)
  t.same(await s.listed(1), expect(FOLD), 'the first read reads the summary')
  t.equal(summaryReads, 1)
  await s.save(record(FOLD + 1))
  await s.drop('id-1')
  t.same(await s.listed(1), expect(FOLD + 1, [1]), "the other replica's writes, from the delta alone")
  t.equal(summaryReads, 1, 'the summary was not read again')
  for (let i = FOLD + 2; i <= 3 * FOLD; i++) await s.save(record(i))
  t.same(await s.listed(1), expect(3 * FOLD, [1]), "after the other replica's fold: read again")
  t.equal(summaryReads, 2, 'the summary was read once more, after the fold')
  t.same(await s.listed(1), expect(3 * FOLD, [1]))
  t.equal(summaryReads, 2, 'and kept again')
})
