// `npm test`: installs what the tests need beyond npm packages (scripts/provision.sh: quick when
// all is there), runs every tap test (or the files given: `npm test -- test/server/core/auth.test.ts`),
// and the schemathesis check, and prints one plain summary line, "tests: N passed, N failed,
// N skipped", exiting non-zero when anything failed or nothing ran.
//
// The whole suite (no files given) is scheduled here rather than by tap alone: tap starts its files
// in alphabetical order, which put the longest ones (test/templates/: Terraform against moto, the
// scanners) last, where they ran one beside the other with nothing left to fill the second core.
// So two workers (tap's `jobs` of .taprc) take the files of SLOW_FIRST first, each in a tap run of
// its own, then the schemathesis check, then the rest in batches that shrink as the queue empties (a
// batch is a third of what is left per worker). Beside them, a lane of its own runs the files of
// WAITING, one after the other: they apply trees to moto, minutes spent mostly in the aws provider's
// own waits (docs/internals/terraform-apply.md), which would hold a core-sized worker with the
// core idle. Each run's output is printed whole when it ends; the closing lines give every file's
// time, slowest first.
//
// The schemathesis check (test/security/schemathesis.check.ts) is a tap test file too, but it runs
// in its own node process: under tap's runner its process ran out of event-loop work in the middle
// of the fuzzing run (the child's close never came) while it passes when run directly.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const SCHEMATHESIS_CHECK = 'test/security/schemathesis.check.ts'

/** Files that apply Terraform trees to moto (plan.test through the server): mostly waiting, minutes each; run in a lane of their own. */
const WAITING = ['test/templates/terraform-apply.test.ts', 'test/templates/upgrade-check.test.ts', 'test/server/jobs/plan/plan.test.ts']

/**
 * The longest of the other files, longest first (per-file times of a full run,
 * docs/internals/tests.md): each starts before the batches of short files, so the short ones fill
 * the cores around them. A new file that takes minutes belongs here (in WAITING when it applies to moto).
 */
const SLOW_FIRST = [
  'test/templates/new-service.test.ts',
  'test/cli/lifecycle.test.ts',
  'test/faults/database-outage.test.ts',
  'test/templates/check-templates.test.ts',
  'test/templates/terraform-validate.test.ts',
  'test/templates/security-scan.test.ts',
]

interface Counts {
  total: number
  passed: number
  failed: number
  skipped: number
  ok: boolean
}

interface Run extends Counts {
  label: string
  output: string
  seconds: number
}

/** Runs a command, keeps its output (streamed when `stream`), and reads tap's closing `# { total, pass, fail, skip }` line. */
function runTap(label: string, command: string, args: string[], stream: boolean): Promise<Run> {
  const started = Date.now()
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', stream ? 'inherit' : 'pipe'] })
    let output = ''
    const keep = (chunk: Buffer) => {
      if (stream) process.stdout.write(chunk)
      output += chunk.toString()
    }
    child.stdout!.on('data', keep)
    child.stderr?.on('data', keep)
    child.on('close', (code) => {
      const all = [...output.matchAll(/# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?(?:, skip: (\d+))?(?:, todo: \d+)? \}/g)]
      const summary = all[all.length - 1]
      const counts = {
        total: Number(summary?.[1] ?? 0),
        passed: Number(summary?.[2] ?? 0),
        failed: Number(summary?.[3] ?? 0),
        skipped: Number(summary?.[4] ?? 0),
      }
      const seconds = (Date.now() - started) / 1000
      resolve({ ...counts, ok: code === 0 && counts.failed === 0, label, output, seconds })
    })
  })
}

const tapJobs = () => Number(/^jobs:\s*(\d+)/m.exec(readFileSync('.taprc', 'utf8'))?.[1] ?? 2)

/** The test files tap would run (the include globs of .taprc), as tap lists them. */
function allTapFiles(): string[] {
  const listed = spawnSync('npx', ['tap', 'list'], { encoding: 'utf8' })
  if (listed.status !== 0) throw new Error(`npx tap list failed: ${listed.stderr}`)
  return listed.stdout.split('\n').filter(Boolean)
}

type Item = { label: string; files: string[] } | { label: string; direct: string }

/** The whole suite: WAITING in a lane of its own; on `workers` workers SLOW_FIRST alone each, the schemathesis check, then shrinking batches. */
async function runScheduled(workers: number): Promise<Run[]> {
  // tap builds its test class with the plugins of .taprc when they differ from its last build (a
  // fresh checkout): done once here, since runs started together would each build it at once.
  const built = spawnSync('npx', ['tap', 'build'], { stdio: 'inherit' })
  if (built.status !== 0) throw new Error('npx tap build failed')
  const files = allTapFiles().filter((f) => f !== SCHEMATHESIS_CHECK)
  const alone = (f: string): Item => ({ label: f, files: [f] })
  const waiting = WAITING.filter((f) => files.includes(f)).map(alone)
  const slow = SLOW_FIRST.filter((f) => files.includes(f))
  const rest = files.filter((f) => !slow.includes(f) && !WAITING.includes(f))
  const head: Item[] = [...slow.map(alone), { label: SCHEMATHESIS_CHECK, direct: SCHEMATHESIS_CHECK }]
  // tap's `--save` list names the files of the run; with one, tap keeps .tap/processinfo, which the
  // other worker's test processes are writing into (without it, each run starts by deleting it).
  const saves = mkdtempSync(path.join(os.tmpdir(), 'ies-test-runs-'))
  const started = Date.now()
  const runs: Run[] = []
  let batches = 0
  const next = (): Item | undefined => {
    const item = head.shift()
    if (item) return item
    if (rest.length === 0) return undefined
    const batch = rest.splice(0, Math.max(1, Math.ceil(rest.length / (3 * workers))))
    const what = batch.length === 1 ? batch[0] : `${batch.length} files, ${batch[0]} to ${batch[batch.length - 1]}`
    return { label: `batch ${++batches}: ${what}`, files: batch }
  }
  let saved = 0
  const worker = async (n: number | string, next: () => Item | undefined) => {
    for (let item = next(); item; item = next()) {
      const at = ((Date.now() - started) / 1000).toFixed(0)
      console.log(`# [${at} s] worker ${n} starts ${item.label}`)
      let run: Run
      if ('direct' in item) run = await runTap(item.label, 'node', ['--import', 'tsx', item.direct], false)
      else {
        const save = path.join(saves, `run-${++saved}.txt`)
        writeFileSync(save, item.files.join('\n') + '\n')
        run = await runTap(item.label, 'npx', ['tap', '--jobs=1', `--save=${save}`, ...item.files], false)
      }
      runs.push(run)
      const end = ((Date.now() - started) / 1000).toFixed(0)
      console.log(`\n# [${end} s] ${item.label}: ${run.ok ? 'ok' : 'FAILED'} in ${run.seconds.toFixed(0)} s\n${run.output}`)
    }
  }
  try {
    const lanes = Array.from({ length: workers }, (_, i) => worker(i + 1, next))
    await Promise.all([...lanes, worker('(moto lane)', () => waiting.shift())])
  } finally {
    rmSync(saves, { recursive: true, force: true })
  }
  printFileTimes(runs)
  return runs
}

/** Every file's time, slowest first, from tap's `ok N - <file> # time=<ms>ms` lines (the direct check: its run). */
function printFileTimes(runs: readonly Run[]): void {
  const times: [string, number][] = []
  for (const run of runs) {
    const lines = [...run.output.matchAll(/^(?:not )?ok \d+ - (\S+\.ts) # time=([\d.]+)ms/gm)]
    if (lines.length === 0) times.push([run.label, run.seconds])
    for (const m of lines) times.push([m[1]!, Number(m[2]) / 1000])
  }
  times.sort((a, b) => b[1] - a[1])
  const total = times.reduce((s, [, v]) => s + v, 0)
  console.log(`\n# per-file times, slowest first (${times.length} files, ${total.toFixed(0)} s in all):`)
  for (const [file, seconds] of times) console.log(`#   ${seconds.toFixed(1).padStart(7)} s  ${file}`)
}

const provisioned = spawnSync('bash', ['scripts/provision.sh'], { stdio: 'inherit' })
if (provisioned.status !== 0) {
  console.error('scripts/provision.sh failed: the tests need the tools it installs')
  process.exit(1)
}

const args = process.argv.slice(2)
const runs: Run[] = []
if (args.length === 0) runs.push(...(await runScheduled(tapJobs())))
else {
  const tapArgs = args.filter((a) => a !== SCHEMATHESIS_CHECK)
  if (tapArgs.length > 0) runs.push(await runTap('tap', 'npx', ['tap', ...tapArgs], true))
  if (args.includes(SCHEMATHESIS_CHECK)) {
    console.log(`\n# ${SCHEMATHESIS_CHECK} (in its own process)`)
    runs.push(await runTap(SCHEMATHESIS_CHECK, 'node', ['--import', 'tsx', SCHEMATHESIS_CHECK], true))
  }
}

const sum = (key: 'total' | 'passed' | 'failed' | 'skipped') => runs.reduce((n, r) => n + r[key], 0)
for (const r of runs.filter((r) => !r.ok)) console.log(`# failed: ${r.label}`)
console.log(`tests: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`)
if (sum('total') === 0) console.error('no test ran')
process.exit(runs.every((r) => r.ok) && sum('total') > 0 ? 0 : 1)
