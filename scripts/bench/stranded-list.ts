// What marking stranded environments costs GET /api/environments (plugins/environments/stranded.ts):
// a user with N environments, every service enabled at the catalog's defaults, listed a page of
// `limit` at a time. "warm": the page's records were judged already at their versions under this
// catalog (the usual case: no record is read); "cold": nothing judged yet (after a start or a catalog
// change), so the page's records are read by `_id` and judged. On the embedded database (FerretDB),
// started like the tests start it.
//
//   npx tsx scripts/bench/stranded-list.ts [--environments 100] [--limit 100] [--rounds 10]
import { parseArgs } from 'node:util'
import { startTestApp } from '../../test/harness/app.ts'
import { allServicesEnabled, environmentBody } from '../../test/harness/jobs.ts'
import { catalogCheckFor } from '../../plugins/environments/catalog-check.ts'
import { StrandedCheck } from '../../plugins/environments/stranded.ts'

const { values } = parseArgs({
  options: {
    environments: { type: 'string', default: '100' },
    limit: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '10' },
  },
})
const [count, limit, rounds] = [Number(values.environments), Number(values.limit), Number(values.rounds)]
const teardowns: (() => unknown)[] = []
const ies = await startTestApp({ teardown: (fn) => teardowns.push(fn) })
try {
  const dev = { ...ies.auth('dev'), 'content-type': 'application/json' }
  const services = await allServicesEnabled()
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify(environmentBody({ name: `env-${String(i).padStart(5, '0')}`, services }))
    const res = await fetch(`${ies.url}/api/environments`, { method: 'POST', headers: dev, body })
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now()
    await work()
    return performance.now() - started
  }

  const list = () => fetch(`${ies.url}/api/environments?limit=${limit}`, { headers: dev }).then((r) => r.json())
  await list()
  const warm: number[] = []
  for (let i = 0; i < rounds; i++) warm.push(await timed(list))

  const catalog = await catalogCheckFor(ies.app).current(ies.app.log)
  const owner = ((await ies.app.mongo.db.collection('environments').findOne({})) as { userId: string } | null)!.userId
  const { items } = await ies.app.environments.listRows({ userId: owner, username: 'dev', groups: [], client: '' }, { page: 1, limit })
  const cold: number[] = []
  for (let i = 0; i < rounds; i++) {
    const check = new StrandedCheck()
    cold.push(await timed(() => check.rows(catalog, items, (ids) => ies.app.environments.records(ids))))
  }
  console.log(
    `stranded-list: ${count} environments, a page of ${limit}: GET /api/environments warm ${median(warm).toFixed(1)} ms; ` +
      `judging the page cold (records read by _id and judged) ${median(cold).toFixed(1)} ms (medians of ${rounds})`,
  )
} finally {
  for (const fn of teardowns.reverse()) await fn()
}
