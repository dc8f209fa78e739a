// `npm run check:templates` with and without the scanners' result store (scripts/check-templates/
// scan-cache.ts), not a test: every tool afresh (IES_SCAN_CACHE=off, the baseline), through an empty
// store (a first run: the tools plus hashing and writing the results), then through the same store
// again (nothing changed). Prints the wall time and the CPU of every process (user plus system) of
// each, and the ratio to the baseline. One check at a time; a few minutes on two cores.
//
//   npx tsx scripts/bench/scan-cache.ts [--templates <dir>] [--service <key>]
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { REPO_ROOT } from '../terraform/cli-config.ts'

const { values } = parseArgs({ options: { templates: { type: 'string' }, service: { type: 'string' } } })
const args = [values.templates ? path.resolve(values.templates) : path.join(REPO_ROOT, 'templates')]
if (values.service) args.push('--service', values.service)

/** One check: wall seconds, and CPU seconds of the check and every process it started (bash's `times`). */
function check(store: string): Promise<{ wall: number; cpu: number; ok: boolean }> {
  const started = performance.now()
  const command = `node --import tsx scripts/check-templates.ts ${args.map((a) => JSON.stringify(a)).join(' ')} >/dev/null; code=$?; times; exit $code`
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { cwd: REPO_ROOT, env: { ...process.env, IES_SCAN_CACHE: store } }, (error, stdout) => {
      // `times`: the shell's own user and system time, then its children's
      const children = stdout.trim().split('\n').at(-1) ?? ''
      const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0)
      resolve({ wall: (performance.now() - started) / 1000, cpu: seconds, ok: !error })
    })
  })
}

const store = await mkdtemp(path.join(os.tmpdir(), 'ies-bench-scan-cache-'))
try {
  console.log(`check:templates ${args.join(' ')} (load average ${os.loadavg()[0]!.toFixed(1)})`)
  const afresh = await check('off')
  const cold = await check(store)
  const warm = await check(store)
  console.log('| run | wall (s) | CPU (s) | CPU vs afresh | report ok |')
  console.log('|---|---:|---:|---:|---|')
  for (const [name, r] of [
    ['every tool afresh (IES_SCAN_CACHE=off)', afresh],
    ['empty store (first run)', cold],
    ['same store again (nothing changed)', warm],
  ] as const) {
    console.log(`| ${name} | ${r.wall.toFixed(1)} | ${r.cpu.toFixed(1)} | ${(r.cpu / afresh.cpu).toFixed(2)}x | ${r.ok ? 'yes' : 'no'} |`)
  }
  console.log(`(load average at the end ${os.loadavg()[0]!.toFixed(1)})`)
} finally {
  await rm(store, { recursive: true, force: true })
}
