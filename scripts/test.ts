// `npm test`: installs what the tests need beyond npm packages (scripts/provision.sh: quick when
// all is there), runs every tap test (or the files given: `npm test -- test/server/core/auth.test.ts`),
// and the schemathesis check, and prints one plain summary line, "tests: N passed, N failed,
// N skipped", exiting non-zero when anything failed or nothing ran.
//
// The whole suite (no files given) is scheduled here rather than by tap's runner: tap starts its
// files in alphabetical order, which put the longest ones (test/templates/: Terraform against moto,
// the scanners) last, where they ran one beside the other with nothing left to fill the second core.
// So two workers (tap's `jobs` of .taprc) take the files of SLOW_FIRST first, then the schemathesis
// check, then the rest, one file after the other. Beside them, a lane of its own runs the files of
// WAITING, one after the other: they apply trees to moto, minutes spent mostly in the aws provider's
// own waits (docs/internals/terraform-apply.md), which would hold a core-sized worker with the core
// idle. Each file's output is printed whole when it ends; the closing lines give every file's time,
// slowest first.
//
// Each file runs as its own node process (`node --import tsx <file>`, tap's `timeout` of .taprc as
// TAP_TIMEOUT), as tap's runner would start it but without the runner: the runner adds its
// processinfo loader to every test process (it records each module loaded, for coverage and
// `--changed`, which are not used here), about 0.7 s of CPU per file (docs/internals/tests.md), and
// the runner's own start per run. What the runner does before its runs, the `before` program of
// .taprc (scripts/checkout-paths.ts), provision.sh has done.
//
// The schemathesis check (test/security/schemathesis.check.ts) is a tap test file too, which `npm
// test -- <files>` also runs in its own node process: under tap's runner its process ran out of
// event-loop work in the middle of the fuzzing run (the child's close never came) while it passes
// when run directly.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const SCHEMATHESIS_CHECK = 'test/security/schemathesis.check.ts'

/** Files that apply Terraform trees to moto (plan.test through the server): mostly waiting, minutes each; run in a lane of their own. */
const WAITING = ['test/templates/terraform-apply.test.ts', 'test/templates/upgrade-check.test.ts', 'test/server/jobs/plan/plan.test.ts']

/**
 * The longest of the other files, longest first (per-file times of a full run,
 * docs/internals/tests.md): each starts before the short files, so the short ones fill
 * the cores around them. A new file that takes minutes belongs here (in WAITING when it applies to moto).
 */
const SLOW_FIRST = [
  'test/scripts/new-service.test.ts',
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
  /** CPU seconds (user and system) of the file's process and every process it waited for; undefined when not measured. */
  cpu?: number
}

/**
 * Runs a command, keeps its output (streamed when `stream`), and reads tap's closing `# { total,
 * pass, fail, skip }` line. With `timed`, the command writes bash's `times` to its file descriptor 3
 * (runFile), which gives its CPU time.
 */
function runTap(label: string, command: string, args: string[], stream: boolean, env = process.env, timed = false): Promise<Run> {
  const started = Date.now()
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', stream ? 'inherit' : 'pipe', ...(timed ? ['pipe' as const] : [])] })
    let times = ''
    child.stdio[3]?.on('data', (chunk: Buffer) => (times += chunk.toString()))
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
      resolve({ ...counts, ok: code === 0 && counts.failed === 0, label, output, seconds, cpu: childrenCpu(times) })
    })
  })
}

/** A number setting of .taprc (`jobs`, `timeout`). */
const tapSetting = (name: string, fallback: number) =>
  Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(readFileSync('.taprc', 'utf8'))?.[1] ?? fallback)

/** The CPU seconds of bash's `times` second line (its children's user and system time: `0m3.120s 0m0.480s`). */
function childrenCpu(times: string): number | undefined {
  const line = times.trim().split('\n')[1]
  const parts = [...(line ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]))
  return parts.length === 2 ? parts[0]! + parts[1]! : undefined
}

/**
 * One test file in a node process of its own, as tap's runner starts it (the `node-arg` of .taprc:
 * tsx), without the runner. bash starts it, to give its CPU time with `times`: the CPU of the node
 * process and of every process it started and waited for (FerretDB, Git, Terraform, a browser...).
 */
function runFile(file: string): Promise<Run> {
  const env = { ...process.env, TAP_TIMEOUT: String(tapSetting('timeout', 30)) }
  return runTap(file, 'bash', ['-c', 'node --import tsx "$0" 3>&-; code=$?; times >&3; exit $code', file], false, env, true)
}

/** The test files tap would run (the include globs of .taprc), as tap lists them. */
function allTapFiles(): string[] {
  const listed = spawnSync('npx', ['tap', 'list'], { encoding: 'utf8' })
  if (listed.status !== 0) throw new Error(`npx tap list failed: ${listed.stderr}`)
  return listed.stdout.split('\n').filter(Boolean)
}

/** The whole suite: WAITING in a lane of its own; on `workers` workers SLOW_FIRST, the schemathesis check, then the rest, each file alone. */
async function runScheduled(workers: number): Promise<Run[]> {
  // tap builds its test class with the plugins of .taprc when they differ from its last build (a
  // fresh checkout): done once here, before the test processes that load it start.
  const built = spawnSync('npx', ['tap', 'build'], { stdio: 'inherit' })
  if (built.status !== 0) throw new Error('npx tap build failed')
  const files = allTapFiles().filter((f) => f !== SCHEMATHESIS_CHECK)
  const waiting = WAITING.filter((f) => files.includes(f))
  const slow = SLOW_FIRST.filter((f) => files.includes(f))
  const rest = files.filter((f) => !slow.includes(f) && !WAITING.includes(f))
  const queue = [...slow, SCHEMATHESIS_CHECK, ...rest]
  const started = Date.now()
  const runs: Run[] = []
  const worker = async (n: number | string, next: () => string | undefined) => {
    for (let file = next(); file; file = next()) {
      const at = ((Date.now() - started) / 1000).toFixed(0)
      console.log(`# [${at} s] worker ${n} starts ${file}`)
      const run = await runFile(file)
      runs.push(run)
      const end = ((Date.now() - started) / 1000).toFixed(0)
      console.log(`\n# [${end} s] ${file}: ${run.ok ? 'ok' : 'FAILED'} in ${run.seconds.toFixed(0)} s\n${run.output}`)
    }
  }
  const lanes = Array.from({ length: workers }, (_, i) => worker(i + 1, () => queue.shift()))
  await Promise.all([...lanes, worker('(moto lane)', () => waiting.shift())])
  printFileTimes(runs)
  return runs
}

/** Every file's time (its process's) and CPU time, slowest first. */
function printFileTimes(runs: readonly Run[]): void {
  const sorted = [...runs].sort((a, b) => b.seconds - a.seconds)
  const sum = (of: (run: Run) => number) => sorted.reduce((s, run) => s + of(run), 0).toFixed(0)
  console.log(
    `\n# per-file times, slowest first (${sorted.length} files, ${sum((r) => r.seconds)} s in all, ${sum((r) => r.cpu ?? 0)} s of CPU):`,
  )
  console.log('#      time      CPU  file')
  for (const run of sorted) {
    const cpu = run.cpu === undefined ? '?' : run.cpu.toFixed(1)
    console.log(`#   ${run.seconds.toFixed(1).padStart(7)} s ${cpu.padStart(6)} s  ${run.label}`)
  }
}

const provisioned = spawnSync('bash', ['scripts/provision.sh'], { stdio: 'inherit' })
if (provisioned.status !== 0) {
  console.error('scripts/provision.sh failed: the tests need the tools it installs')
  process.exit(1)
}

const args = process.argv.slice(2)
const runs: Run[] = []
if (args.length === 0) runs.push(...(await runScheduled(tapSetting('jobs', 2))))
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
