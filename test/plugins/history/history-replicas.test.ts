// Two servers on one database append to one environment's history at the same moment (FerretDB: a
// conditional write there is a read and then a write, so only a unique `_id` decides who takes a
// number): updates of the environment through both servers' API, and a burst of appends through both
// servers' history stores. Afterwards the history holds every entry exactly once, numbered 1..n with
// no gap and no repeat, and the list, one entry and the export agree.
import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { buildApp } from '@ies/server'
import { startTestApp } from '../../harness/app.ts'
import { createEnvironment, environmentBody } from '../../harness/jobs.ts'

t.test('appends from two servers to one history', async (t) => {
  const ctx = await startTestApp(t)
  const second = await buildApp({ config: ctx.config, logger: false })
  t.teardown(() => second.close())
  await second.listen({ host: '127.0.0.1', port: 0 })
  const urls = [ctx.url, `http://127.0.0.1:${(second.server.address() as AddressInfo).port}`]
  const env = await createEnvironment(ctx, environmentBody({ name: 'shop-replicas' }))

  const put = async (url: string, i: number) => {
    const requestId = randomUUID()
    const res = await fetch(`${url}/api/environments/${env.id}`, {
      method: 'PUT',
      headers: { ...ctx.auth('dev'), 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ domain: `shop-${i}.example.com` }),
    })
    await res.arrayBuffer()
    return { status: res.status, requestId }
  }
  const puts = await Promise.all(Array.from({ length: 24 }, (_, i) => put(urls[i % 2], i)))
  const updated = puts.filter((p) => p.status === 200).map((p) => p.requestId)
  t.ok(updated.length > 0, `updates through both servers (${updated.length} of ${puts.length} stored, the others 409)`)
  t.same(
    puts.filter((p) => p.status !== 200 && p.status !== 409),
    [],
    'an update is stored or refused as a conflict',
  )

  // A burst through both servers' stores: many appends of each waiting on the other's.
  const stores = [ctx.app.history.store, second.history.store]
  const burst = Array.from({ length: 120 }, (_, i) => `burst-${i}`)
  const settled = await Promise.allSettled(
    burst.map((requestId, i) =>
      stores[i % 2].append({
        environmentId: env.id,
        environmentName: 'shop-replicas',
        kind: 'push',
        at: new Date(),
        actor: { userId: 'u1', username: 'dev' },
        requestId,
        jobId: `job-${i}`,
      }),
    ),
  )
  t.same(
    settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : [])),
    [],
    'every append of the burst stored',
  )
  const numbers = settled.map((s) => (s.status === 'fulfilled' ? s.value : 0))
  t.equal(new Set(numbers).size, burst.length, 'each append of the burst its own number')

  const expected = 1 + updated.length + burst.length
  t.equal(await stores[0].count(env.id), expected, 'the count, read by the first server')
  t.equal(await stores[1].count(env.id), expected, 'the count, read by the second server')
  const entries = await stores[1].range(env.id, 1, expected + 10)
  t.same(
    entries.map((e) => e.id),
    Array.from({ length: expected }, (_, i) => expected - i),
    'numbers 1..n, newest first, without a gap or a repeat',
  )
  const requestIds = entries.map((e) => e.requestId)
  t.equal(new Set(requestIds).size, requestIds.length, 'no entry twice')
  t.same(
    [...requestIds].filter((r) => r !== requestIds.at(-1)).sort(),
    [...updated, ...burst].sort(),
    'every update and every append of the burst, exactly once',
  )
  t.same(
    numbers.map((n) => entries.find((e) => e.id === n)?.requestId),
    burst,
    'each append is the entry of the number it answered',
  )

  const listed = await fetch(`${urls[1]}/api/environments/${env.id}/history?limit=100&page=1`, { headers: ctx.auth('dev') })
  const body = (await listed.json()) as { pagination: { total: number }; data: { id: number }[] }
  t.equal(body.pagination.total, expected, 'the API lists them all')
  t.same(
    body.data.map((e) => e.id),
    Array.from({ length: 100 }, (_, i) => expected - i),
  )
  const exported: { environmentId: string; id: number }[] = []
  for await (const e of stores[0].between(new Date(0), new Date(Date.now() + 1000))) if (e.environmentId === env.id) exported.push(e)
  t.same(
    exported.map((e) => e.id),
    Array.from({ length: expected }, (_, i) => i + 1),
    'the export holds each entry once, in order',
  )
})
