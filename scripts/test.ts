// `npm test`: installs what the tests need beyond npm packages (scripts/provision.sh: quick when
// all is there), runs every tap test (or the files given: `npm test -- test/server/auth.test.ts`),
// then the schemathesis check, and prints one plain summary line, "tests: N passed, N failed,
// N skipped", exiting non-zero when anything failed or nothing ran.
//
// The schemathesis check (test/security/schemathesis.check.ts) is a tap test file too, but it runs
// in its own node process: under tap's runner its process ran out of event-loop work in the middle
// of the fuzzing run (the child's close never came) while it passes when run directly.
import { spawn, spawnSync } from 'node:child_process'

const SCHEMATHESIS_CHECK = 'test/security/schemathesis.check.ts'

interface Counts {
  total: number
  passed: number
  failed: number
  skipped: number
  ok: boolean
}

/** Runs a command, streams its output, and reads tap's closing `# { total, pass, fail, skip }` line. */
function runTap(command: string, args: string[]): Promise<Counts> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let tail = ''
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk)
      tail = (tail + chunk.toString()).slice(-4000)
    })
    child.on('close', (code) => {
      const all = [...tail.matchAll(/# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?(?:, skip: (\d+))?(?:, todo: \d+)? \}/g)]
      const summary = all[all.length - 1]
      const counts = {
        total: Number(summary?.[1] ?? 0),
        passed: Number(summary?.[2] ?? 0),
        failed: Number(summary?.[3] ?? 0),
        skipped: Number(summary?.[4] ?? 0),
      }
      resolve({ ...counts, ok: code === 0 && counts.failed === 0 })
    })
  })
}

const provisioned = spawnSync('bash', ['scripts/provision.sh'], { stdio: 'inherit' })
if (provisioned.status !== 0) {
  console.error('scripts/provision.sh failed: the tests need the tools it installs')
  process.exit(1)
}

const args = process.argv.slice(2)
const runs: Counts[] = []
const tapArgs = args.filter((a) => a !== SCHEMATHESIS_CHECK)
if (args.length === 0 || tapArgs.length > 0) runs.push(await runTap('npx', ['tap', ...tapArgs]))
if (args.length === 0 || args.includes(SCHEMATHESIS_CHECK)) {
  console.log(`\n# ${SCHEMATHESIS_CHECK} (in its own process)`)
  runs.push(await runTap('node', ['--import', 'tsx', SCHEMATHESIS_CHECK]))
}

const sum = (key: 'total' | 'passed' | 'failed' | 'skipped') => runs.reduce((n, r) => n + r[key], 0)
console.log(`tests: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`)
if (sum('total') === 0) console.error('no test ran')
process.exit(runs.every((r) => r.ok) && sum('total') > 0 ? 0 : 1)
