// Generation latency benchmark (not a test): `npx tsx scripts/bench/generation.ts [--runs 50] [--polling-runs 10] [--concurrent 50]`
//
// For the full AWS tree with every service enabled, side by side in one run:
//   1. request to `succeeded` through the API with the notification channel (the service's default),
//   2. the same with Agenda's default polling (JOBS_NOTIFY=false, JOBS_PROCESS_EVERY_MS=5000),
//   3. the floor: reading, processing and zipping the tree directly (processor-lib, no queue, no database),
//   4. N concurrent generations: all succeed, none lost, wall time and p95.
// Latency is measured by the client, which waits in one of two ways: `poll` (GET /api/jobs/:id every
// 10 ms, as before) or `wait` (GET /api/jobs/:id?wait=true, long polling), and on the server (the
// job's finishedAt - createdAt). 50 clients polling every 10 ms are themselves most of the load.
import { parseArgs } from 'node:util'
import { startTestApp } from '../../test/harness/app.ts'
import { allServicesEnabled, environmentBody } from '../../test/harness/jobs.ts'
import { FULL_TREE, floorSamples } from './floor.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    'polling-runs': { type: 'string', default: '10' },
    concurrent: { type: 'string', default: '50' },
  },
})
const RUNS = Number(values.runs)
const POLLING_RUNS = Number(values['polling-runs'])
const CONCURRENT = Number(values.concurrent)
const OPTIONS = FULL_TREE

type Client = 'poll' | 'wait'
const teardowns: (() => unknown)[] = []
const t = { teardown: (fn: () => unknown) => teardowns.push(fn) }

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
  return { n: sorted.length, median: at(0.5), p95: at(0.95), min: sorted[0], max: sorted[sorted.length - 1] }
}
const fmt = (s: ReturnType<typeof stats>) =>
  `median ${s.median.toFixed(1)} ms  p95 ${s.p95.toFixed(1)} ms  (min ${s.min.toFixed(1)}, max ${s.max.toFixed(1)}, n=${s.n})`

async function service(env: Record<string, string>) {
  const app = await startTestApp(t, env)
  const headers = { ...app.auth('dev'), 'content-type': 'application/json' }
  const services = await allServicesEnabled()
  const created = await fetch(`${app.url}/api/environments`, {
    method: 'POST',
    headers,
    body: JSON.stringify(environmentBody({ services })),
  })
  if (created.status !== 201) throw new Error(`environment: ${created.status} ${await created.text()}`)
  const envId = ((await created.json()) as any).data.id as string

  async function generateOnce(client: Client = 'poll'): Promise<{ client: number; server: number; status: string }> {
    const t0 = performance.now()
    const res = await fetch(`${app.url}/api/environments/${envId}/generate`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ format: 'terraform', options: OPTIONS }),
    })
    const jobId = ((await res.json()) as any).data.id
    for (;;) {
      const job = ((await (await fetch(`${app.url}/api/jobs/${jobId}${client === 'wait' ? '?wait=true' : ''}`, { headers })).json()) as any)
        .data
      if (job.status === 'succeeded' || job.status === 'failed') {
        const client = performance.now() - t0
        return { client, server: Date.parse(job.finishedAt) - Date.parse(job.createdAt), status: job.status }
      }
      if (client === 'poll') await new Promise((r) => setTimeout(r, 10))
    }
  }
  return { generateOnce, close: () => app.app.close() }
}

async function sequential(run: () => Promise<{ client: number; server: number; status: string }>, n: number) {
  await run() // warm-up
  const client: number[] = []
  const server: number[] = []
  for (let i = 0; i < n; i++) {
    const r = await run()
    if (r.status !== 'succeeded') throw new Error(`a generation ${r.status}`)
    client.push(r.client)
    server.push(r.server)
  }
  return { client: stats(client), server: stats(server) }
}

async function floor(n: number) {
  return stats(await floorSamples(n))
}

try {
  console.log(`Generation benchmark: full AWS tree, every service enabled, format terraform with backend, charts and gitops\n`)
  const floorStats = await floor(RUNS)
  console.log(`floor   process + zip in process      ${fmt(floorStats)}`)

  const notified = await service({})
  const n = await sequential(() => notified.generateOnce('poll'), RUNS)
  console.log(`notify  request -> succeeded (client) ${fmt(n.client)}   (client polls every 10 ms)`)
  console.log(`        created -> finished (server)  ${fmt(n.server)}`)
  const w = await sequential(() => notified.generateOnce('wait'), RUNS)
  console.log(`notify  request -> succeeded (client) ${fmt(w.client)}   (client long-polls: ?wait=true)`)
  console.log(`        created -> finished (server)  ${fmt(w.server)}`)

  for (const client of ['poll', 'wait'] as const) {
    const c0 = performance.now()
    const all = await Promise.all(Array.from({ length: CONCURRENT }, () => notified.generateOnce(client)))
    const wall = performance.now() - c0
    const ok = all.filter((r) => r.status === 'succeeded').length
    const conc = stats(all.map((r) => r.client))
    console.log(
      `concurrent ${CONCURRENT} (${client}): ${ok}/${CONCURRENT} succeeded, ${CONCURRENT - ok} failed or lost; wall ${wall.toFixed(0)} ms; per job ${fmt(conc)}`,
    )
  }
  await notified.close()

  const polling = await service({ JOBS_NOTIFY: 'false', JOBS_PROCESS_EVERY_MS: '5000' })
  const p = await sequential(polling.generateOnce, POLLING_RUNS)
  console.log(`polling request -> succeeded (client) ${fmt(p.client)}   (Agenda's default polling, 5 s)`)
  await polling.close()

  const best = Math.min(n.client.median, w.client.median)
  console.log(
    `\nratios (median): notify/floor ${(n.client.median / floorStats.median).toFixed(2)}x (poll), ${(w.client.median / floorStats.median).toFixed(2)}x (wait)   polling/notify ${(p.client.median / n.client.median).toFixed(1)}x`,
  )
  console.log(`aim: notify median < 250 ms: ${best < 250 ? 'yes' : 'NO'}; < 3x floor: ${best < 3 * floorStats.median ? 'yes' : 'NO'}`)
} finally {
  for (const fn of teardowns.reverse()) await Promise.resolve(fn()).catch(() => {})
}
