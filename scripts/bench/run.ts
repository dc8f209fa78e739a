// `npm run bench`: every benchmark of scripts/bench/, one after the other, each printing its own
// side-by-side table; ends with a summary. Not a test. Default run: about ten minutes.
//
//   npm run bench                       all of them, default sizes
//   npm run bench -- api processor      only these
//   BENCH_LONG=1 npm run bench          the benchmarks' own (longer) default sizes
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const long = process.env.BENCH_LONG === '1'

const BENCHMARKS: { name: string; file: string; args: string[]; what: string }[] = [
  {
    name: 'api',
    file: 'api.ts',
    args: long ? ['--rounds', '5', '--duration', '10'] : [],
    what: 'API read and catalog 304 vs bare Fastify (throughput ratios)',
  },
  { name: 'processor', file: 'processor.ts', args: long ? [] : ['10'], what: 'template processing vs a plain copy of the tree' },
  {
    name: 'generation',
    file: 'generation.ts',
    args: long ? [] : ['--runs', '10', '--polling-runs', '2', '--concurrent', '10'],
    what: 'generation latency: notification vs polling vs floor',
  },
  {
    name: 'data-scale',
    file: 'data-scale.ts',
    args: long ? [] : ['--sizes', '1000,10000', '--generations', '2', '--big-user', '10000', '--samples', '20'],
    what: 'list, read, job read, download and update as the store grows (1k/10k; 100k long)',
  },
  {
    name: 'concurrency',
    file: 'concurrency.ts',
    args: long ? [] : ['--history', '20000'],
    what: '1, 50 and 200 concurrent generations, without and with a job history',
  },
  {
    name: 'push',
    file: 'push.ts',
    args: long ? ['--runs', '30'] : [],
    what: 'push into a large repository vs an empty one, and with a cold repository cache vs warm',
  },
  {
    name: 'policies',
    file: 'policies.ts',
    args: long ? ['--runs', '20000'] : [],
    what: "organisation rules' evaluation vs the input's JSON round trip",
  },
  {
    name: 'approvals-list',
    file: 'approvals-list.ts',
    args: long ? ['--sizes', '1000,10000,100000'] : [],
    what: 'reading the pushes awaiting approval: the waiting collection vs a status scan of the job queue',
  },
  {
    name: 'assistant-first-request',
    file: 'assistant-first-request.ts',
    args: long ? ['--runs', '10'] : [],
    what: "the assistant's first request after a start vs the same request again (longest event-loop delay)",
  },
  {
    name: 'scan-cache',
    file: 'scan-cache.ts',
    args: [],
    what: "check:templates with every tool afresh vs through the scanners' result store, empty then warm",
  },
  {
    name: 'catalog-first-read',
    file: 'catalog-first-read.ts',
    args: long ? ['--runs', '10'] : ['--runs', '3'],
    what: "the catalog's first read after a start vs the same read again (longest turn of the event loop)",
  },
]

const only = process.argv.slice(2)
const chosen = only.length ? BENCHMARKS.filter((b) => only.includes(b.name)) : BENCHMARKS
const summary: { name: string; what: string; seconds: number; status: string }[] = []
for (const b of chosen) {
  console.log(`\n## ${b.name}: ${b.what}\n`)
  const started = Date.now()
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, b.file), ...b.args], { stdio: 'inherit' })
    child.once('exit', (c) => resolve(c))
  })
  summary.push({ name: b.name, what: b.what, seconds: (Date.now() - started) / 1000, status: code === 0 ? 'ok' : `exit ${code}` })
}
console.log('\n## summary\n')
console.log('| benchmark | what | seconds | status |')
console.log('|---|---|---:|---|')
for (const s of summary) console.log(`| ${s.name} | ${s.what} | ${s.seconds.toFixed(0)} | ${s.status} |`)
if (summary.some((s) => s.status !== 'ok')) process.exitCode = 1
