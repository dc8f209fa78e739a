// Load test (not a test in `npm test`): 60 seconds against the running service on loopback with a
// realistic mix, then checks that nothing failed. Prints throughput and latency.
//
//   npm run load  [-- --duration 60 --connections 10 --generations-per-second 1]
//
// The service runs as the tests run it (scripts/bench/servers.ts: IES with every plugin, FerretDB,
// a JWKS token issuer), in a process of its own; autocannon runs here. Two streams at once:
//   - the interactive mix, as fast as it is answered, each connection cycling through:
//     list (2x), read (3x), update (1x), catalog revalidation with the current ETag (2x, 304);
//   - generation: POST /generate (full terraform + backend) at a fixed rate, every job polled to the end.
// Pass: zero transport errors, zero timeouts, every answer the expected status, every job succeeded.
import { parseArgs } from 'node:util'

import { cannon, startServers } from './bench/cannon.ts'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '10' },
    'generations-per-second': { type: 'string', default: '1' },
  },
})
const DURATION = Number(values.duration)
const CONNECTIONS = Number(values.connections)
const GEN_RATE = Number(values['generations-per-second'])

const { servers, stop } = await startServers({ JOBS_WAIT_TIMEOUT_MS: '0' })
try {
  const auth = { authorization: servers.authorization }
  const json = { ...auth, 'content-type': 'application/json' }
  const env = `/api/environments/${servers.environmentId}`
  const list = { method: 'GET', path: '/api/environments?limit=20', headers: auth }
  const read = { method: 'GET', path: env, headers: auth }
  const revalidate = { method: 'GET', path: '/api/catalog', headers: { ...auth, 'if-none-match': servers.catalogEtag } }
  let update = 0
  const put = {
    method: 'PUT',
    path: env,
    headers: json,
    setupRequest: (req: any) => ({ ...req, body: JSON.stringify({ domain: `v${++update}.example.com` }) }),
  }
  const mix = [list, read, revalidate, read, put, list, read, revalidate]

  const jobIds: string[] = []
  const generations = cannon(
    {
      url: servers.ies,
      duration: DURATION,
      connections: 1,
      overallRate: GEN_RATE,
      requests: [
        {
          method: 'POST',
          path: `${env}/generate`,
          headers: json,
          body: JSON.stringify({ format: 'terraform', options: { includeBackend: true } }),
          onResponse: (status: number, body: string) => {
            if (status === 202) jobIds.push(JSON.parse(body).data.id)
          },
        },
      ],
    },
    202,
  )
  const interactive = cannon({ url: servers.ies, duration: DURATION, connections: CONNECTIONS, requests: mix }, [200, 304])
  const [mixRun, genRun] = await Promise.all([interactive, generations])

  // Every generation job reaches `succeeded` (bounded wait).
  const outcome: Record<string, number> = {}
  const deadline = Date.now() + 300_000
  for (const id of jobIds) {
    for (;;) {
      const res = await fetch(`${servers.ies}/api/jobs/${id}`, { headers: auth })
      const status = res.status === 200 ? ((await res.json()) as { data: { status: string } }).data.status : `http ${res.status}`
      if (status !== 'queued' && status !== 'running') {
        outcome[status] = (outcome[status] ?? 0) + 1
        break
      }
      if (Date.now() > deadline) {
        outcome[`still ${status}`] = (outcome[`still ${status}`] ?? 0) + 1
        break
      }
      await new Promise((r) => setTimeout(r, 200))
    }
  }

  console.log(
    `Load test: ${DURATION} s, loopback, IES with every plugin on FerretDB; ${CONNECTIONS} connections for the mix, generation at ${GEN_RATE}/s\n`,
  )
  console.log('| stream | requests | req/s | p50 ms | p99 ms | errors | timeouts | unexpected status | statuses |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|')
  for (const [name, r] of [
    ['mix: list, read, update, catalog 304', mixRun],
    ['generation (POST, 202)', genRun],
  ] as const) {
    console.log(
      `| ${name} | ${r.total} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.timeouts} | ${r.unexpected} | ${JSON.stringify(r.statuses)} |`,
    )
  }
  console.log(`\ngeneration jobs: ${jobIds.length} queued; outcomes ${JSON.stringify(outcome)}; last domain update v${update}`)
  const bad = mixRun.errors + mixRun.timeouts + mixRun.unexpected + genRun.errors + genRun.timeouts + genRun.unexpected
  const jobsOk = (outcome.succeeded ?? 0) === jobIds.length && jobIds.length > 0
  console.log(bad === 0 && jobsOk ? 'result: PASS (zero errors)' : 'result: FAIL')
  if (bad !== 0 || !jobsOk) process.exitCode = 1
} finally {
  await stop()
}
