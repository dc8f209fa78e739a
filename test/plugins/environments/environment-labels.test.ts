// Labels of an environment: set on create and update (merge patch), validated with the field named,
// returned, shown in list rows and filtered on with `?label=`.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { api } from '../helpers.ts'

const base = { globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1' }

t.test('labels', async (t) => {
  const ctx = await startTestApp(t)
  const a = api(ctx)

  const prod = await a.createEnv('dev', { ...base, name: 'shop-prod', labels: { tier: 'production', 'cost-centre': 'ops' } })
  t.equal(prod.status, 201, prod.raw)
  t.same(prod.body.data.labels, { tier: 'production', 'cost-centre': 'ops' })
  const dev = await a.createEnv('dev', { ...base, name: 'shop-dev', labels: { tier: 'development' } })
  t.equal(dev.status, 201, dev.raw)
  const none = await a.createEnv('dev', { ...base, name: 'shop-lab' })
  t.equal(none.status, 201, none.raw)
  t.notOk('labels' in none.body.data, 'no labels: none returned')

  t.test('an unknown tier or a bad key is a 400 naming the field, nothing stored', async (t) => {
    const bad = await a.createEnv('dev', { ...base, name: 'shop-bad', labels: { tier: 'prod' } })
    t.equal(bad.status, 400)
    t.equal(bad.body.error.code, 'VALIDATION_ERROR')
    t.ok(
      bad.body.error.details.some((d: { field: string }) => d.field === 'labels.tier'),
      JSON.stringify(bad.body.error.details),
    )
    const key = await a.createEnv('dev', { ...base, name: 'shop-bad', labels: { 'Bad Key': 'x' } })
    t.equal(key.status, 400)
    t.match(JSON.stringify(key.body.error.details), /labels/)
    const value = await a.createEnv('dev', { ...base, name: 'shop-bad', labels: { owner: 'a,b' } })
    t.equal(value.status, 400)
    t.ok(
      value.body.error.details.some((d: { field: string }) => d.field === 'labels.owner'),
      JSON.stringify(value.body.error.details),
    )
    const list = await a.listEnvs('dev', '?limit=100')
    t.notOk(
      list.body.data.some((e: { name: string }) => e.name === 'shop-bad'),
      'nothing stored',
    )
  })

  t.test('a merge patch sets and removes labels', async (t) => {
    const put = await a.putEnv('dev', none.body.data.id, { labels: { tier: 'staging', owner: 'web' } })
    t.equal(put.status, 200, put.raw)
    t.same(put.body.data.labels, { tier: 'staging', owner: 'web' })
    const removed = await a.putEnv('dev', none.body.data.id, { labels: { owner: null } })
    t.same(removed.body.data.labels, { tier: 'staging' })
    const refused = await a.putEnv('dev', none.body.data.id, { labels: { tier: 'qa' } })
    t.equal(refused.status, 400)
    t.same((await a.getEnv('dev', none.body.data.id)).body.data.labels, { tier: 'staging' }, 'a refused update changes nothing')
  })

  t.test('list rows carry labels and filter on them', async (t) => {
    const all = await a.listEnvs('dev', '?sort=name')
    t.same(
      all.body.data.map((e: { name: string; labels?: object }) => [e.name, e.labels ?? null]),
      [
        ['shop-dev', { tier: 'development' }],
        ['shop-lab', { tier: 'staging' }],
        ['shop-prod', { tier: 'production', 'cost-centre': 'ops' }],
      ],
    )
    const prodOnly = await a.listEnvs('dev', '?label=tier=production')
    t.same(
      prodOnly.body.data.map((e: { name: string }) => e.name),
      ['shop-prod'],
    )
    t.equal(prodOnly.body.pagination.total, 1)
    const both = await a.listEnvs('dev', '?label=tier=production,cost-centre=ops')
    t.equal(both.body.data.length, 1)
    const has = await a.listEnvs('dev', '?label=cost-centre&sort=name')
    t.same(
      has.body.data.map((e: { name: string }) => e.name),
      ['shop-prod'],
    )
    const none = await a.listEnvs('dev', '?label=tier=staging,cost-centre=ops')
    t.equal(none.body.data.length, 0)
    const bad = await a.listEnvs('dev', '?label=tier==x')
    t.equal(bad.status, 400)
    t.match(JSON.stringify(bad.body.error.details), /label/)
  })
})
