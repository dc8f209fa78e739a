// `npm test`: installs what the tests need beyond npm packages (scripts/provision.sh: quick when
// all is there), runs every tap test (or the files given: `npm test -- test/server/core/auth.test.ts`),
// and the schemathesis check, and prints one plain summary line, "tests: N passed, N failed,
// N skipped", exiting non-zero when anything failed or nothing ran.
//
// The whole suite (no files given) is scheduled here rather than by tap's runner: tap starts its
// files in alphabetical order, which put the longest ones (test/templates/: Terraform against moto,
// the scanners) last, where they ran one beside the other with nothing left to fill the second core.
// So two workers (tap's `jobs` of .taprc) take the files of SLOW_FIRST first, then the schemathesis
// check, then the rest, in batches of BATCH_SIZE files (those of LONG_BATCHED first). Beside them, a
// lane of its own runs the files of WAITING, one after the other: they apply trees to moto, minutes
// spent mostly in the aws provider's own waits (docs/internals/terraform-apply.md), which would hold
// a core-sized worker with the core idle. Once its own list is empty, a lane takes from the other's.
// Each run's output is printed whole when it ends; the closing lines give every file's time, slowest
// first.
//
// A batch is one node process that runs its files one after the other, each in a subtest of its own
// (scripts/test/batch.ts): a file with a few tests spends most of its CPU starting a process and
// warming cold code, which a batch pays once. The files of ALONE keep a process of their own.
//
// Each file or batch runs as its own node process (`node --import tsx <file>`, tap's `timeout` of
// .taprc as TAP_TIMEOUT, which a batch gives each of its files), as tap's runner would start it but
// without the runner: the runner adds its processinfo loader to every test process (it records each
// module loaded, for coverage and `--changed`, which are not used here), about 0.7 s of CPU per file
// (docs/internals/tests.md), and the runner's own start per run. What the runner does before its
// runs, the `before` program of .taprc (scripts/checkout-paths.ts), provision.sh has done.
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

/**
 * Files that keep a node process of their own: the long ones above (their CPU is their tools',
 * not node's) and those whose top level is not only tests (`t.plan`, `t.end()`), which a batch's
 * subtest per file cannot hold.
 */
const ALONE = [...WAITING, ...SLOW_FIRST, 'test/templates/gate.test.ts', 'test/processor-lib/service.test.ts']

/**
 * The longest of the batched files, longest first (times in the batches of a full run): the first
 * batches hold them, so the short files' batches fill the cores at the end of the run.
 */
const LONG_BATCHED = [
  'test/server/jobs/push/push-entries.test.ts',
  'test/server/jobs/push/push-merge.test.ts',
  'test/server/jobs/push/push-base.test.ts',
  'test/plugins/upgrades/upgrade-waves.test.ts',
  'test/templates/pipeline-rehearsal.test.ts',
  'test/plugins/upgrades/upgrade-status-build.test.ts',
  'test/server/jobs/generation/remote-generation.test.ts',
  'test/e2e/upgrade-waves.test.ts',
  'test/e2e/push-lifecycle.test.ts',
  'test/server/idp/keycloak.test.ts',
  'test/server/jobs/plan/plan-rules.test.ts',
  'test/scripts/check-templates/scan-cache.test.ts',
  'test/plugins/teams/pipeline-ui.test.ts',
  'test/faults/generation-outage.test.ts',
  'test/docs/five-steps.test.ts',
  'test/plugins/history/change-history.test.ts',
]

/** How many files a batch holds: enough to pay a process's start once for many, few enough that a failure names a short list. */
const BATCH_SIZE = 8

interface Counts {
  total: number
  passed: number
  failed: number
  skipped: number
  ok: boolean
}

interface Run extends Counts {
  label: string
  /** For a batch: each file's time and the batch process's own CPU in it (its `# file` comments). */
  files?: { file: string; seconds: number; cpu: number }[]
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
 * `node --import tsx <args>` (the `node-arg` of .taprc) with tap's `timeout` of .taprc as
 * TAP_TIMEOUT, without tap's runner. bash starts it, to give its CPU time with `times`: the CPU of
 * the node process and of every process it started and waited for (FerretDB, Git, Terraform, a
 * browser...).
 */
function runTimed(label: string, args: string[]): Promise<Run> {
  const env = { ...process.env, TAP_TIMEOUT: String(tapSetting('timeout', 30)) }
  const script = 'node --import tsx "$@" 3>&-; code=$?; times >&3; exit $code'
  return runTap(label, 'bash', ['-c', script, 'node', ...args], false, env, true)
}

/** One test file in a node process of its own, as tap's runner starts it. */
const runFile = (file: string): Promise<Run> => runTimed(file, [file])

/** Files one after the other in one node process (scripts/test/batch.ts), each file's time read from its comment. */
async function runBatch(files: readonly string[]): Promise<Run> {
  const run = await runTimed(`${files.length} files in one process`, ['scripts/test/batch.ts', ...files])
  const timed = [...run.output.matchAll(/^# file (\S+): ([\d.]+) s, ([\d.]+) s of CPU$/gm)]
  return { ...run, files: timed.map((m) => ({ file: m[1]!, seconds: Number(m[2]), cpu: Number(m[3]) })) }
}

/** The files a failed run names: the file itself, or the files of a batch whose subtest failed (the batch when none did). */
function failedFiles(run: Run): string[] {
  if (run.ok) return []
  const named = run.files ? [...run.output.matchAll(/^not ok \d+ - (\S+)/gm)].map((m) => m[1]!) : [run.label]
  return named.length > 0 ? named : [run.label]
}

/** The test files tap would run (the include globs of .taprc), as tap lists them. */
function allTapFiles(): string[] {
  const listed = spawnSync('npx', ['tap', 'list'], { encoding: 'utf8' })
  if (listed.status !== 0) throw new Error(`npx tap list failed: ${listed.stderr}`)
  return listed.stdout.split('\n').filter(Boolean)
}

/** The whole suite: WAITING in a lane of its own; on `workers` workers SLOW_FIRST, the schemathesis check, then the rest in batches; each lane takes from the other's list when its own is empty. */
async function runScheduled(workers: number): Promise<Run[]> {
  // tap builds its test class with the plugins of .taprc when they differ from its last build (a
  // fresh checkout): done once here, before the test processes that load it start.
  const built = spawnSync('npx', ['tap', 'build'], { stdio: 'inherit' })
  if (built.status !== 0) throw new Error('npx tap build failed')
  const files = allTapFiles().filter((f) => f !== SCHEMATHESIS_CHECK)
  const waiting = WAITING.filter((f) => files.includes(f)).map((f) => [f])
  const alone = files.filter((f) => ALONE.includes(f) && !WAITING.includes(f))
  const slow = SLOW_FIRST.filter((f) => alone.includes(f))
  const batched = files.filter((f) => !ALONE.includes(f))
  const rest = [...LONG_BATCHED.filter((f) => batched.includes(f)), ...batched.filter((f) => !LONG_BATCHED.includes(f))]
  const batches = Array.from({ length: Math.ceil(rest.length / BATCH_SIZE) }, (_, i) => rest.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE))
  const others = alone.filter((f) => !slow.includes(f))
  const queue = [...slow, SCHEMATHESIS_CHECK, ...others].map((f) => [f]).concat(batches)
  const started = Date.now()
  const runs: Run[] = []
  const worker = async (n: number | string, next: () => string[] | undefined) => {
    for (let item = next(); item; item = next()) {
      const at = ((Date.now() - started) / 1000).toFixed(0)
      console.log(`# [${at} s] worker ${n} starts ${item.join(', ')}`)
      const run = await (batches.includes(item) ? runBatch(item) : runFile(item[0]!))
      runs.push(run)
      const end = ((Date.now() - started) / 1000).toFixed(0)
      console.log(`\n# [${end} s] ${item.join(', ')}: ${run.ok ? 'ok' : 'FAILED'} in ${run.seconds.toFixed(0)} s\n${run.output}`)
    }
  }
  // Each lane takes from the other's list once its own is empty: a worker the next file of WAITING,
  // the moto lane the next of the queue. The cores then stay busy to the end of the run.
  const lanes = Array.from({ length: workers }, (_, i) => worker(i + 1, () => queue.shift() ?? waiting.shift()))
  await Promise.all([...lanes, worker('(moto lane)', () => waiting.shift() ?? queue.shift())])
  printFileTimes(runs)
  return runs
}

/** Every run's time and CPU time (its process's and those it waited for), slowest first; under a batch, its files. */
function printFileTimes(runs: readonly Run[]): void {
  const sorted = [...runs].sort((a, b) => b.seconds - a.seconds)
  const sum = (of: (run: Run) => number) => sorted.reduce((s, run) => s + of(run), 0).toFixed(0)
  const count = sorted.reduce((n, run) => n + (run.files?.length ?? 1), 0)
  console.log(
    `\n# per-run times, slowest first (${count} files in ${sorted.length} runs, ${sum((r) => r.seconds)} s in all, ${sum((r) => r.cpu ?? 0)} s of CPU;`,
  )
  console.log('# under a batch, each file with the CPU of the batch process alone):')
  console.log('#      time      CPU  file')
  const line = (seconds: number, cpu: number | undefined, label: string) =>
    console.log(`#   ${seconds.toFixed(1).padStart(7)} s ${(cpu === undefined ? '?' : cpu.toFixed(1)).padStart(6)} s  ${label}`)
  for (const run of sorted) {
    line(run.seconds, run.cpu, run.label)
    for (const file of run.files ?? []) line(file.seconds, file.cpu, `  ${file.file}`)
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
for (const file of runs.flatMap(failedFiles)) console.log(`# failed: ${file}`)
console.log(`tests: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`)
if (sum('total') === 0) console.error('no test ran')
process.exit(runs.every((r) => r.ok) && sum('total') > 0 ? 0 : 1)
