// What the catalog's first read after a start costs the event loop (not a test): the first read of the
// catalog (GET /api/catalog; the typed view an environment check reads, `app.catalog.view`, asked in
// the server's process; an environment write, which adds its own first-answer costs) when no other came
// before it, against the same read again (the baseline: the catalog cached). Before it, one request that
// does not read the catalog (GET /api/users/me) warms what every first request pays (the token's
// verification, the database connection). Each run is a fresh process that starts a server as the tests
// do (startTestApp); the figures are the longest turn of the event loop (wall time) and the most CPU time
// the server's thread used in one turn, which other processes on a busy machine do not inflate (every
// turn is seen by a setImmediate that queues itself: test/harness/thread-cpu.ts `watchTurns`).
//
//   npx tsx scripts/bench/catalog-first-read.ts [--runs 5]
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, child: { type: 'string' } } })
const CASES = ['GET /api/catalog', 'app.catalog.view', 'POST /api/environments'] as const
type Figures = { turnMs: number; turnCpuMs: number | null }

/** One request with every turn of the loop watched: the longest turn's wall time, the most CPU time the thread used in one turn. */
async function watched(send: () => Promise<void>): Promise<Figures> {
  const { watchTurns } = await import('../../test/harness/thread-cpu.ts')
  const stop = watchTurns()
  await send()
  const { wallMs, cpuMs } = stop()
  return { turnMs: wallMs, turnCpuMs: cpuMs }
}

/** In a fresh process: the first request of the case and the same request again. */
async function child(which: (typeof CASES)[number]): Promise<void> {
  const { startTestApp } = await import('../../test/harness/app.ts')
  const { environmentBody } = await import('../../test/harness/jobs.ts')
  const teardowns: Array<() => unknown> = []
  const { app, url, auth } = await startTestApp({ teardown: (fn) => teardowns.push(fn) })
  const headers = { ...auth('dev'), 'content-type': 'application/json' }
  let n = 0
  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    await res.arrayBuffer()
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`)
  }
  await request('GET', '/api/users/me')
  const send = async () => {
    if (which === 'GET /api/catalog') await request('GET', '/api/catalog')
    else if (which === 'POST /api/environments') await request('POST', '/api/environments', environmentBody({ name: `bench-${++n}` }))
    else if (!(await app.catalog.view(app.log, { unavailable: 'bench: catalog unavailable' }))) throw new Error('no catalog view')
  }
  const first = await watched(send)
  const again = await watched(send)
  console.log(JSON.stringify({ first, again }))
  for (const fn of teardowns.reverse()) await fn()
  process.exit(0)
}

if (values.child) await child(values.child as (typeof CASES)[number])

const runOnce = (which: string) =>
  new Promise<{ first: Figures; again: Figures }>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', which], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    proc.stdout.on('data', (d) => (out += d))
    proc.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`${which}: exit ${code}`)),
    )
  })
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (ms: number | undefined) => (ms === undefined ? '-' : `${ms.toFixed(1)} ms`)
console.log(`runs: ${values.runs} fresh processes per request; medians, then the largest`)
console.log(
  'read | first: longest turn | first: most CPU in a turn | again: longest turn | again: most CPU in a turn | ratio first/again (CPU)',
)
console.log('---|---|---|---|---|---')
for (const which of CASES) {
  const runs: Array<{ first: Figures; again: Figures }> = []
  for (let i = 0; i < Number(values.runs); i++) runs.push(await runOnce(which))
  const col = (pick: (r: (typeof runs)[number]) => number | null) => runs.map(pick).filter((x): x is number => x !== null)
  const both = (xs: number[]) => (xs.length ? `${fmt(median(xs))} (${fmt(Math.max(...xs))})` : '-')
  const fc = col((r) => r.first.turnCpuMs)
  const ac = col((r) => r.again.turnCpuMs)
  console.log(
    [
      which,
      both(col((r) => r.first.turnMs)),
      both(fc),
      both(col((r) => r.again.turnMs)),
      both(ac),
      fc.length && ac.length && median(ac) > 0 ? `${(median(fc) / median(ac)).toFixed(1)}x` : '-',
    ].join(' | '),
  )
}
