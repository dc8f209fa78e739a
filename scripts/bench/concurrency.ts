// Concurrency benchmark (not a test): `npx tsx scripts/bench/concurrency.ts [--levels 1,50,200] [--history 20000] [--single 20]`
//
// Generations of the full AWS tree (every service enabled, backend, charts, GitOps) against the
// server as its own process (the real entry point, FerretDB on SQLite, default configuration),
// `--single` one after another, then 50 and 200 at once; then the same again with `--history`
// finished jobs in the job history (100,000 with BENCH_LONG=1). Each client queues a generation
// (POST /generate) and long-polls its job (GET /api/jobs/:id?wait=true) until it has finished.
// Printed side by side: throughput, latency p50/p95/p99, failures (503 counted apart), and the CPU
// time of the server, of FerretDB and of this load generator; and the in-process floor.
// Aims: all succeed at 200 with no 503; >= 25 generations per second at 50 and 200
// whatever the history; warm single generation <= 2x the floor; floor <= 15 ms.
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { startTestApp } from '../../test/harness/app.ts'
import { allServicesEnabled, environmentBody } from '../../test/harness/jobs.ts'
import { startReplicaProcess } from '../../test/harness/replica.ts'
import { FULL_TREE, floorSamples } from './floor.ts'
import { heldToken } from './held-token.ts'

const long = process.env.BENCH_LONG === '1'
const { values } = parseArgs({
  options: {
    levels: { type: 'string', default: '1,50,200' },
    history: { type: 'string', default: long ? '100000' : '20000' },
    single: { type: 'string', default: '20' },
  },
})
const LEVELS = values.levels.split(',').map(Number)
const HISTORY = Number(values.history)
const SINGLE = Number(values.single)

const teardowns: (() => unknown)[] = []
const t = { teardown: (fn: () => unknown) => teardowns.push(fn) }

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (100 Hz)
}

/** The FerretDB process listening on the port. */
function ferretPid(port: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      if (cmd.includes('ferretdb') && cmd.includes(String(port))) return Number(entry)
    } catch {
      // gone meanwhile
    }
  }
  return undefined
}

try {
  const floor = (await floorSamples(20)).sort((a, b) => a - b)
  const harness = await startTestApp(t, { JOBS_PROCESS: 'false' })
  const server = await startReplicaProcess(t, harness, {})
  const dbPid = ferretPid(harness.db.server!.port)
  const token = heldToken(() => harness.auth('dev'))
  const headers = () => ({ ...token(), 'content-type': 'application/json' })
  const services = await allServicesEnabled()
  const created = await fetch(`${server.url}/api/environments`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify(environmentBody({ services })),
  })
  if (created.status !== 201) throw new Error(`environment: ${created.status} ${await created.text()}`)
  const envId = ((await created.json()) as any).data.id as string

  /** One generation: queued, then waited for; its latency and outcome. */
  async function generation(): Promise<{ ms: number; outcome: string }> {
    const t0 = performance.now()
    const res = await fetch(`${server.url}/api/environments/${envId}/generate`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ format: 'terraform', options: FULL_TREE }),
    })
    const body = (await res.json()) as any
    if (res.status !== 202) return { ms: performance.now() - t0, outcome: String(res.status) }
    for (;;) {
      const job = await fetch(`${server.url}/api/jobs/${body.data.id}?wait=true`, { headers: headers() })
      const view = (await job.json()) as any
      if (job.status !== 200) return { ms: performance.now() - t0, outcome: String(job.status) }
      if (view.data.status === 'succeeded' || view.data.status === 'failed')
        return { ms: performance.now() - t0, outcome: view.data.status }
    }
  }

  const rows: string[] = []
  async function run(level: number, history: string) {
    const count = level === 1 ? SINGLE : level
    const cpu0 = { server: cpuSeconds(server.child.pid!), db: dbPid ? cpuSeconds(dbPid) : NaN, client: process.cpuUsage() }
    const t0 = performance.now()
    const results: { ms: number; outcome: string }[] = []
    if (level === 1) {
      await generation() // warm-up
      for (let i = 0; i < count; i++) results.push(await generation())
    } else results.push(...(await Promise.all(Array.from({ length: count }, generation))))
    const wall = (performance.now() - t0) / 1000
    const client = process.cpuUsage(cpu0.client)
    const cpu = {
      server: cpuSeconds(server.child.pid!) - cpu0.server,
      db: dbPid ? cpuSeconds(dbPid) - cpu0.db : NaN,
      client: (client.user + client.system) / 1e6,
    }
    const ms = results.map((r) => r.ms).sort((a, b) => a - b)
    const ok = results.filter((r) => r.outcome === 'succeeded').length
    const unavailable = results.filter((r) => r.outcome === '503').length
    rows.push(
      `| ${level} | ${history} | ${ok}/${count} | ${count - ok - unavailable} | ${unavailable} | ${(count / wall).toFixed(1)} | ` +
        `${quantile(ms, 0.5).toFixed(0)} | ${quantile(ms, 0.95).toFixed(0)} | ${quantile(ms, 0.99).toFixed(0)} | ` +
        `${cpu.server.toFixed(1)} | ${cpu.db.toFixed(1)} | ${cpu.client.toFixed(1)} |`,
    )
    console.error(rows[rows.length - 1])
  }

  for (const level of LEVELS) await run(level, 'empty')
  if (HISTORY > 0) {
    const template = await harness.db.client.db().collection('jobHistory').findOne({})
    const docs = Array.from({ length: HISTORY }, () => ({ ...template, _id: randomUUID() as never }))
    for (let i = 0; i < docs.length; i += 200)
      await harness.db.client
        .db()
        .collection('jobHistory')
        .insertMany(docs.slice(i, i + 200))
    for (const level of LEVELS) await run(level, `${HISTORY.toLocaleString('en')} jobs`)
  }

  console.log(`Concurrency benchmark: full AWS tree, every service enabled; server in its own process, FerretDB on SQLite\n`)
  console.log(
    `floor (process + zip in process, no queue): median ${quantile(floor, 0.5).toFixed(1)} ms, p95 ${quantile(floor, 0.95).toFixed(1)} ms (aim <= 15 ms)\n`,
  )
  console.log(
    '| concurrent | history | succeeded | failed | 503 | generations/s | p50 ms | p95 ms | p99 ms | CPU s server | CPU s FerretDB | CPU s client |',
  )
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of rows) console.log(row)
  console.log('\naims: all succeed at 200 with no 503; >= 25 generations/s at 50 and 200; single (concurrent 1) p50 <= 2x the floor')
} finally {
  for (const fn of teardowns.reverse()) await Promise.resolve(fn()).catch(() => {})
}
