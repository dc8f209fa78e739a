// The per-user environment summary (plugins/environments/summaries.ts) behind GET /api/environments:
// the list follows creates, renames, status and deletions; concurrent creates on two servers of one
// database all appear; a summary that lost an update (or is gone) is rebuilt from the records when
// a list finds it out of step; and a list reads no other user's records.
import t from 'tap'
import { buildApp } from '@ies/server'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'
import { decodeEntries } from '../../../plugins/environments/summary-entries.ts'
import { api } from '../helpers.ts'

const body = (name: string, provider = 'aws') => ({ name, globalPrefix: 'acme', provider, region: 'eu-west-1' })
const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((e) => e.name)

t.test('the list follows every write through the summary', async (t) => {
  const ctx = await startTestApp(t)
  const a = api(ctx)
  const ids: Record<string, string> = {}
  for (const name of ['charlie', 'alpha', 'bravo']) ids[name] = (await a.createEnv('dev', body(name))).body.data.id
  await a.createEnv('dev', body('delta', 'gcp'))
  await a.createEnv('other', body('zulu'))

  let list = await a.listEnvs('dev', '?sort=name')
  t.same(names(list), ['alpha', 'bravo', 'charlie', 'delta'])
  t.equal(list.body.pagination.total, 4)
  t.same(names(await a.listEnvs('dev', '?sort=name&provider=gcp')), ['delta'], 'filter by provider')
  t.same(names(await a.listEnvs('dev')), ['delta', 'bravo', 'alpha', 'charlie'], 'newest first by default')
  t.same(names(await a.listEnvs('dev', '?sort=name&order=desc&limit=2&page=2')), ['bravo', 'alpha'], 'second page, descending')

  const moved = await a.putEnv('dev', ids.alpha, { provider: 'gcp', region: 'europe-west1' })
  t.equal(moved.status, 200, JSON.stringify(moved.body.error ?? null))
  t.same(names(await a.listEnvs('dev', '?sort=name&provider=gcp')), ['alpha', 'delta'], 'an update moves the entry between filters')
  t.equal((await a.deleteEnv('dev', ids.bravo)).status, 204)
  list = await a.listEnvs('dev', '?sort=name')
  t.same(names(list), ['alpha', 'charlie', 'delta'], 'a deletion removes it')
  t.equal(list.body.pagination.total, 3)
  t.same(names(await a.listEnvs('other')), ['zulu'], "another user's list is their own")
})

t.test('a summary out of step with the records is rebuilt by the next list', async (t) => {
  const ctx = await startTestApp(t)
  const a = api(ctx)
  const summaries = ctx.app.mongo.db.collection<{ _id: string; entries: string }>('environment_summaries')
  const first = (await a.createEnv('dev', body('one'))).body.data.id
  await a.createEnv('dev', body('two'))
  const userId = (await summaries.findOne({}))!._id

  // A lost update: the summary still has the old provider and version of `one`.
  const before = await summaries.findOne({ _id: userId })
  t.equal((await a.putEnv('dev', first, { provider: 'gcp', region: 'europe-west1' })).status, 200)
  await summaries.replaceOne({ _id: userId }, { entries: before!.entries, revision: 1000 } as never)
  // The list answers from the summary, then compares the page with its records and rebuilds it.
  const listed = await eventually(
    async () => names(await a.listEnvs('dev', '?sort=name&provider=aws')),
    (l) => l.join() === 'two',
  )
  t.same(listed, ['two'], 'the stale entry is noticed and the summary rebuilt')
  // The rebuilt summary is stored after the list has answered: wait for it.
  const storedEntries = async () =>
    decodeEntries((await summaries.findOne({ _id: userId }))!.entries)
      .map((e) => `${e.name}:${e.provider}`)
      .sort()
  t.same(await eventually(storedEntries, (e) => e.join() === 'one:gcp,two:aws'), ['one:gcp', 'two:aws'], 'and stored again')

  // A database from before summaries (no summary, no `#all` marker): one scan builds them all.
  await summaries.deleteMany({})
  const list = await a.listEnvs('dev', '?sort=name')
  t.same(names(list), ['one', 'two'])
  t.equal(list.body.pagination.total, 2)
})

t.test('concurrent creates on two servers of one database all appear in the list', async (t) => {
  const ctx = await startTestApp(t)
  const second = await buildApp({ config: ctx.config, logger: false, mongoClient: undefined })
  t.teardown(() => second.close())
  await second.ready()
  const a = api(ctx)
  const headers = ctx.auth('dev')
  const N = 24
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      i % 2 === 0
        ? a.createEnv('dev', body(`env-${i}`))
        : second
            .inject({ method: 'POST', url: '/api/environments', headers, payload: body(`env-${i}`) })
            .then((r) => ({ status: r.statusCode })),
    ),
  )
  t.same(
    results.map((r) => r.status),
    results.map(() => 201),
  )
  const list = await a.listEnvs('dev', '?limit=100')
  t.equal(list.body.pagination.total, N, 'the total counts every environment')
  t.equal(names(list).length, N, 'and the page lists them all')
})
