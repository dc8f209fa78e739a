// HTTP benchmarks of the API against bare Fastify baselines (not a test), side by side in one run:
//   1. authenticated GET /api/environments/:id (every IES plugin: request id, JWT verification,
//      user sync, both rate limits, schema serialisation, the repository) against a bare Fastify
//      route doing the same database read with no plugins; aim: at least half its throughput;
//   2. GET /api/catalog revalidation (If-None-Match with the current ETag, answered 304) against a
//      bare Fastify hello world; aim: at least 60% of its throughput.
// Subject and baseline run alternately (ABBA order per round) so that machine noise hits both; the
// servers run in a child process of their own (scripts/bench/servers.ts), autocannon in this one.
//
//   npx tsx scripts/bench/api.ts [--rounds 3] [--duration 5] [--connections 10] [--only catalog]
import { parseArgs } from 'node:util'
import { cannon, median, startServers, type Run } from './cannon.ts'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    /** Run only the benchmarks whose name contains this text. */
    only: { type: 'string', default: '' },
  },
})
const ROUNDS = Number(values.rounds)
const DURATION = Number(values.duration)
const CONNECTIONS = Number(values.connections)

const { servers, stop } = await startServers()
try {
  const pairs = [
    {
      name: 'GET /api/environments/:id vs bare Fastify + same findOne',
      aim: 0.5,
      subject: () =>
        cannon({
          url: `${servers.ies}/api/environments/${servers.environmentId}`,
          headers: { authorization: servers.authorization },
          duration: DURATION,
          connections: CONNECTIONS,
        }),
      baseline: () =>
        cannon({ url: `${servers.bare}/environments/${servers.environmentId}`, duration: DURATION, connections: CONNECTIONS }),
    },
    {
      name: 'GET /api/catalog 304 vs bare Fastify hello world',
      aim: 0.6,
      subject: () =>
        cannon(
          {
            url: `${servers.ies}/api/catalog`,
            headers: { authorization: servers.authorization, 'if-none-match': servers.catalogEtag },
            duration: DURATION,
            connections: CONNECTIONS,
          },
          304,
        ),
      baseline: () => cannon({ url: `${servers.hello}/`, duration: DURATION, connections: CONNECTIONS }),
    },
  ].filter((p) => p.name.includes(values.only))
  // Warm-up: JIT, connection pools, the catalog cache.
  for (const p of pairs) {
    await p.baseline()
    await p.subject()
  }
  const samples = pairs.map(() => ({ subject: [] as Run[], baseline: [] as Run[] }))
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, p] of pairs.entries()) {
      const order = round % 2 ? (['subject', 'baseline'] as const) : (['baseline', 'subject'] as const)
      for (const which of order) samples[i][which].push(await p[which]())
    }
  }
  console.log(`HTTP benchmarks: ${ROUNDS} alternating rounds of ${DURATION} s per side, ${CONNECTIONS} connections, loopback; medians\n`)
  console.log('| benchmark | IES req/s | baseline req/s | ratio | aim | IES p99 ms | baseline p99 ms | errors / unexpected status |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  let failed = false
  for (const [i, p] of pairs.entries()) {
    const s = samples[i]
    const rps = (runs: Run[]) => median(runs.map((r) => r.rps))
    const p99 = (runs: Run[]) => median(runs.map((r) => r.p99))
    const bad = [...s.subject, ...s.baseline].reduce((n, r) => n + r.errors + r.timeouts + r.unexpected, 0)
    const ratio = rps(s.subject) / rps(s.baseline)
    if (bad) failed = true
    console.log(
      `| ${p.name} | ${rps(s.subject).toFixed(0)} | ${rps(s.baseline).toFixed(0)} | ${ratio.toFixed(2)} ${ratio >= p.aim ? 'ok' : 'BELOW AIM'} | ≥ ${p.aim} | ${p99(s.subject)} | ${p99(s.baseline)} | ${bad} |`,
    )
  }
  if (failed) process.exitCode = 1
} finally {
  await stop()
}
