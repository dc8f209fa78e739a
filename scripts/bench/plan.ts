// Plan benchmark (not a test): `npx tsx scripts/bench/plan.ts [--runs 3]`
//
// IES's plan job against `terraform plan` run by hand, on the same tree and state. A small
// environment (rds, sqs, s3; no vpc) is pushed through IES to a local Git server, its branch is
// applied once to moto (the S3 state backend in moto's S3), then, alternating:
//   ies   POST /api/environments/:id/plan, until the job has succeeded (generation, fetch and merge of
//         the branch, a fresh directory for the tree, plan with the environment's warm data directory
//         (initialised by the push's own plan: server/src/jobs/plan/warm-dirs.ts), show -json);
//   hand  `terraform plan -lock=false -refresh=true` in the clone, already initialised (a warm
//         working directory: what an engineer runs again at the terminal).
// Both use the checkout's provider mirror (scripts/terraform/); Terraform's own time dominates.
// Prints the medians and their ratio, and the median of each run's own ratio (aim: at most 1.3x).
// `--load`: then generation latency idle against while ten plans are queued at once (aim: at most
// 2x); a benchmark rather than a test: on the shared 2-core machine the figure moves with others' load. docs/internals/benchmarks.md has the figures.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { applyWithoutGaps, createStateBucket, initBackend, plan as tfPlan } from '../check-templates/moto-stack.ts'
import { terraform, terraformMissing, tfEnv } from '../check-templates/terraform.ts'
import { ensureCliConfig } from '../terraform/cli-config.ts'
import { startMoto } from '../services/moto.ts'
import { startTestApp } from '../../test/harness/app.ts'
import { startGitServer } from '../../test/harness/git-server.ts'
import type { JobView } from '../../test/harness/jobs.ts'

const run = promisify(execFile)
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, load: { type: 'boolean', default: false } } })
const RUNS = Number(values.runs)
/** Generations measured idle, and at least as many while the plans run. */
const GENERATIONS = 7
const PLANS_AT_ONCE = 10
const KEY = 'iest_cGxhbi1iZW5jaC1kZXBsb3kta2V5'
const REGION = 'eu-central-1'
const BUCKET = 'ies-plan-bench-state'
const teardowns: (() => unknown)[] = []
const t = { teardown: (fn: () => unknown) => teardowns.push(fn) }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function main(): Promise<void> {
  const missing = terraformMissing()
  if (missing) throw new Error(missing)
  const moto = await startMoto()
  teardowns.push(() => moto.stop())
  const keys = { accessKeyId: 'AKIAIESPLANBENCH0001', secretAccessKey: 'plan-bench-secret' }
  await createStateBucket(moto.endpoint, { bucket: BUCKET, region: REGION, key: 'unused', useLockfile: true } as never)
  const git = await startGitServer({ username: 'x-access-token', password: KEY })
  teardowns.push(() => git.stop())
  const remote = await git.createRepo('bench', { 'README.md': '# bench\n' })
  const app = await startTestApp(t, {
    PUSH_ALLOWED_HOSTS: '127.0.0.1',
    AWS_ENDPOINT_URL: moto.endpoint,
    TERRAFORM_CLI_CONFIG: ensureCliConfig()!,
  })
  // A fresh token for every request: the run outlives one.
  const api = async (route: string, body?: unknown) => {
    const headers = body === undefined ? app.auth('dev') : { ...app.auth('dev'), 'content-type': 'application/json' }
    const res = await fetch(`${app.url}/api${route}`, {
      method: 'POST',
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    const answer = (await res.json()) as { data: { id: string } }
    if (!res.ok) throw new Error(`${route}: ${res.status} ${JSON.stringify(answer)}`)
    return answer
  }
  /** The job once it has ended, polled every `ms` with a fresh token. */
  const finished = async (id: string, ms: number) => {
    for (;;) {
      const job = ((await (await fetch(`${app.url}/api/jobs/${id}`, { headers: app.auth('dev') })).json()) as { data: JobView }).data
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await new Promise((r) => setTimeout(r, ms))
    }
  }
  const credential = await api('/cloud-credentials', { name: 'moto', provider: 'aws', credentials: { ...keys, region: REGION } })
  const env = await api('/environments', {
    name: 'bench',
    globalPrefix: 'acme',
    provider: 'aws',
    region: REGION,
    domain: '',
    services: { rds: { enabled: true, deletionProtection: false }, sqs: { enabled: true }, s3: { enabled: true } },
    terraformBackend: { bucket: BUCKET, region: REGION },
    cloudCredentialId: credential.data.id,
    gitRepository: { url: remote, branch: 'main', deployKey: KEY },
  })
  const pushed = await finished((await api(`/environments/${env.data.id}/push`, {})).data.id, 200)
  if (pushed.status !== 'succeeded') throw new Error(`push: ${JSON.stringify(pushed.error)}`)

  const work = await mkdtemp(path.join(os.tmpdir(), 'ies-plan-bench-'))
  teardowns.push(() => rm(work, { recursive: true, force: true }))
  const basic = `Authorization: Basic ${Buffer.from(`x-access-token:${KEY}`).toString('base64')}`
  await run('git', ['-c', `http.extraHeader=${basic}`, 'clone', '-q', '--branch', 'main', git.url('bench'), path.join(work, 'clone')])
  const tree = path.join(work, 'clone', 'terraform')
  const awsEnv = tfEnv({
    AWS_ENDPOINT_URL: moto.endpoint,
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    AWS_REGION: REGION,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
  })
  await initBackend(tree, awsEnv)
  const applied = await applyWithoutGaps(tree, awsEnv, await tfPlan(tree, awsEnv))
  console.log(`applied ${applied.created} resources to moto`)

  const ies: number[] = []
  const hand: number[] = []
  /** The job's own Terraform time (init when it ran, plan, show -json): the rest is generation, Git and the queue. */
  const inside: number[] = []
  for (let i = 0; i < RUNS; i++) {
    let started = performance.now()
    const done = await finished((await api(`/environments/${env.data.id}/plan`)).data.id, 50)
    if (done.status !== 'succeeded') throw new Error(`plan job: ${JSON.stringify(done.error)}`)
    ies.push(performance.now() - started)
    inside.push((done.result as { seconds: number }).seconds * 1000)
    started = performance.now()
    const byHand = await terraform(tree, ['plan', '-lock=false', '-refresh=true', '-input=false', '-no-color', '-out=tfplan'], awsEnv)
    if (byHand.code !== 0) throw new Error(`terraform plan: ${byHand.stderr}`)
    hand.push(performance.now() - started)
    console.log(
      `run ${i + 1}: ies ${(ies[i]! / 1000).toFixed(1)} s (Terraform in it ${(inside[i]! / 1000).toFixed(1)} s), terraform plan ${(hand[i]! / 1000).toFixed(1)} s`,
    )
  }
  const [a, b] = [median(ies), median(hand)]
  // Each run's pair ran back to back: their ratio is less at the mercy of the machine's load than the medians'.
  const pairs = median(ies.map((x, i) => x / hand[i]!))
  console.log('\n| measure | IES plan job (s) | terraform plan by hand (s) | ratio | aim |')
  console.log('|---|---:|---:|---:|---:|')
  console.log(`| median of ${RUNS} | ${(a / 1000).toFixed(1)} | ${(b / 1000).toFixed(1)} | ${(a / b).toFixed(2)} | <= 1.3 |`)
  console.log(`| median of the ${RUNS} runs' own ratios | | | ${pairs.toFixed(2)} | <= 1.3 |`)
  if (values.load) await generationsUnderPlans(env.data.id, api, finished)
}

/**
 * Generation latency idle (the baseline), then while ten plans of the environment are queued at once
 * (PLAN_CONCURRENCY of them run, the rest wait in their own slots): medians side by side (aim: at
 * most 2x). Generations one after another, each from its POST to its job's end.
 */
async function generationsUnderPlans(
  envId: string,
  api: (route: string, body?: unknown) => Promise<{ data: { id: string } }>,
  finished: (id: string, ms: number) => Promise<JobView>,
): Promise<void> {
  const generation = async () => {
    const started = performance.now()
    const done = await finished((await api(`/environments/${envId}/generate`, { format: 'terraform' })).data.id, 20)
    if (done.status !== 'succeeded') throw new Error(`generation: ${JSON.stringify(done.error)}`)
    return performance.now() - started
  }
  await generation() // warm-up
  const idle: number[] = []
  for (let i = 0; i < GENERATIONS; i++) idle.push(await generation())
  const plans = await Promise.all(Array.from({ length: PLANS_AT_ONCE }, async () => (await api(`/environments/${envId}/plan`)).data.id))
  const planning = Promise.all(plans.map((id) => finished(id, 500)))
  let over = false
  void planning.finally(() => (over = true))
  const loaded: number[] = []
  while (!over || loaded.length < GENERATIONS) loaded.push(await generation())
  const ended = await planning
  if (ended.some((j) => j.status !== 'succeeded')) throw new Error(`a plan failed: ${JSON.stringify(ended.map((j) => j.error))}`)
  const [a, b] = [median(loaded), median(idle)]
  console.log(`\n| generation latency | while ${PLANS_AT_ONCE} plans run (ms) | idle (ms) | ratio | aim |`)
  console.log('|---|---:|---:|---:|---:|')
  console.log(
    `| median (${loaded.length} / ${idle.length} generations) | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(a / b).toFixed(2)} | <= 2 |`,
  )
}

try {
  await main()
} finally {
  for (const fn of teardowns.reverse()) await Promise.resolve(fn()).catch(() => {})
}
