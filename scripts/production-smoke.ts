// The production setup of docs/operations.md, started for real on loopback and driven by the `ies`
// command line with client credentials, as a pipeline would:
//   Keycloak with the realm of scripts/keycloak/realm.json, the store (FerretDB, or MONGODB_URI when
//   set), Redis, the processor service, and two IES replicas with NODE_ENV=production sharing them:
//   replica A serves the API only (JOBS_PROCESS=false), replica B serves the API and runs the jobs.
// Journey: store a cloud credential and apply an environment file through A (the credential named,
// the repository without its token), give it its deploy key from a file, generate and download
// through A (B runs the job), push through A and read the push job from B, then check the commit
// with the git CLI on the local Git server, then plan the environment with `ies plan` through A
// (Terraform on replica B, the state bucket and the cloud in moto: 0 to change or destroy, every
// resource to add, nothing applied yet). Run it with `bash scripts/production-smoke.sh`, which stops
// every process it started however this script ends. It needs Terraform and the provider mirror
// (scripts/terraform/build-mirror.sh) and moto, as the plan tests do.
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startKeycloak, KEYCLOAK_CLI_SECRET, KEYCLOAK_REALM } from '../test/harness/keycloak.ts'
import { startGitServer } from '../test/harness/git-server.ts'
import { startChildService } from './services/child-service.ts'
import { REPO_ROOT, startFerretDB } from './services/ferretdb.ts'
import { freePort } from './services/net.ts'
import { startRedis } from './services/redis.ts'
import { startMoto } from './services/moto.ts'
import { createStateBucket } from './check-templates/moto-stack.ts'
import { terraformMissing } from './check-templates/terraform.ts'
import { ensureCliConfig } from './terraform/cli-config.ts'

const IES_BIN = path.join(REPO_ROOT, 'cli/bin/ies.js')
const REGION = 'eu-west-1'
const STATE_BUCKET = 'ies-smoke-state'

const started = Date.now()
const work = mkdtempSync(path.join(os.tmpdir(), 'ies-production-smoke-'))
const stops: (() => Promise<void>)[] = []

function step(what: string) {
  console.log(`== [${((Date.now() - started) / 1000).toFixed(1)}s] ${what}`)
}

function check(ok: unknown, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`)
  console.log(`   ok: ${what}`)
}

/** Tells the shell wrapper about a process group this script did not keep in its own. */
function recordProcessGroup(pid: number) {
  if (process.env.SMOKE_PID_FILE) appendFileSync(process.env.SMOKE_PID_FILE, `${pid}\n`)
}

async function stopAll() {
  for (const stop of stops.reverse()) await stop().catch((err) => console.error(`stopping: ${(err as Error).message}`))
  stops.length = 0
  rmSync(work, { recursive: true, force: true })
}

async function untilHealthy(url: string, timeoutMs = 60_000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    if ((await fetch(`${url}/health`).catch(() => null))?.status === 200) return
  }
  throw new Error(`${url}/health did not answer 200 within ${timeoutMs} ms`)
}

/** One IES replica as its own process, configured only through the environment, as docs/operations.md says. */
async function startReplica(name: string, env: Record<string, string>) {
  const port = await freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  const service = await startChildService({
    name: `IES replica ${name}`,
    command: process.execPath,
    args: ['--import', 'tsx', path.join(REPO_ROOT, 'server/src/main.ts')],
    port,
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: publicUrl },
    startTimeoutMs: 60_000,
  })
  stops.push(service.stop)
  await untilHealthy(publicUrl)
  return publicUrl
}

/** Runs `ies` against one replica with the pipeline's client credentials; its JSON output, or a failure with what it printed. */
function ies(server: string, args: string[], env: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [IES_BIN, ...args, '--json'], {
      env: { ...process.env, ...env, IES_SERVER: server, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (err += chunk))
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`ies ${args.join(' ')} exited ${code}: ${err.trim() || out.trim()}`))
      resolve(out.trim() ? JSON.parse(out) : undefined)
    })
  })
}

/** Keycloak, the store, Redis, the processor service and two IES replicas; each stopped by stopAll. */
async function startStack(): Promise<{ keycloak: Awaited<ReturnType<typeof startKeycloak>>; replicaA: string; replicaB: string }> {
  const noTerraform = terraformMissing()
  if (noTerraform) throw new Error(`${noTerraform}: the smoke runs a plan`)
  step('moto (the cloud and the state bucket the plan reads)')
  const moto = await startMoto()
  stops.push(moto.stop)
  await createStateBucket(moto.endpoint, { bucket: STATE_BUCKET, region: REGION } as never)

  step('Keycloak, realm imported from scripts/keycloak/realm.json')
  const keycloak = await startKeycloak()
  recordProcessGroup(keycloak.pid)
  stops.push(keycloak.close)
  console.log(`   ${keycloak.issuer} (${(keycloak.startMs / 1000).toFixed(0)} s to start)`)

  step(process.env.MONGODB_URI ? 'the store: MONGODB_URI' : 'the store: FerretDB')
  let mongodbUri = process.env.MONGODB_URI
  if (!mongodbUri) {
    const ferretdb = await startFerretDB({ dataDir: path.join(work, 'ferretdb') })
    stops.push(ferretdb.stop)
    mongodbUri = ferretdb.uri
  }

  step('Redis')
  const redis = await startRedis()
  stops.push(redis.stop)

  step('the processor service')
  const processorToken = randomBytes(24).toString('base64url')
  const processorPort = await freePort()
  const processor = await startChildService({
    name: 'processor service',
    command: process.execPath,
    args: ['--import', 'tsx', path.join(REPO_ROOT, 'processor-lib/src/service/main.ts')],
    port: processorPort,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(processorPort),
      PROCESSOR_SERVICE_TOKEN: processorToken,
      PROCESSOR_TEMPLATES_ROOT: path.join(REPO_ROOT, 'templates'),
    },
  })
  stops.push(processor.stop)

  step('two IES replicas, NODE_ENV=production: A serves the API only, B also runs the jobs')
  const shared = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    MONGODB_URI: mongodbUri,
    AUTH_URL: keycloak.authUrl,
    AUTH_REALM: KEYCLOAK_REALM,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    REDIS_URL: redis.url,
    PROCESSOR_URL: `http://127.0.0.1:${processorPort}`,
    PROCESSOR_SERVICE_TOKEN: processorToken,
    PUSH_ALLOWED_HOSTS: '127.0.0.1',
    // Plans: Terraform with the checkout's provider mirror, the cloud in moto (docs/operations.md, "Terraform for plans").
    TERRAFORM_CLI_CONFIG: ensureCliConfig()!,
    AWS_ENDPOINT_URL: moto.endpoint,
  }
  const replicaA = await startReplica('A', { ...shared, JOBS_PROCESS: 'false' })
  const replicaB = await startReplica('B', { ...shared, JOBS_PROCESS: 'true' })
  console.log(`   A ${replicaA}, B ${replicaB}`)
  return { keycloak, replicaA, replicaB }
}

async function main() {
  const { keycloak, replicaA, replicaB } = await startStack()

  step('a Git server with an empty repository, a token as its password')
  const deployKey = randomBytes(20).toString('hex')
  const git = await startGitServer({ username: 'x-access-token', password: deployKey })
  stops.push(git.stop)
  const repoUrl = await git.createRepo('shop-dev', { 'README.md': '# shop-dev\n' })

  const cli = {
    IES_AUTH_URL: keycloak.authUrl,
    IES_REALM: KEYCLOAK_REALM,
    IES_CLIENT_ID: 'ies-cli',
    IES_CLIENT_SECRET: KEYCLOAK_CLI_SECRET,
    IES_CONFIG_DIR: path.join(work, 'ies-config'),
  }
  const file = (name: string, content: string) => {
    writeFileSync(path.join(work, name), content, { mode: 0o600 })
    return path.join(work, name)
  }

  step('ies credentials create and ies apply -f, through A')
  const secretFile = file(
    'aws.yaml',
    `accessKeyId: AKIASMOKETEST0000001\nsecretAccessKey: ${randomBytes(30).toString('base64')}\nregion: ${REGION}\n`,
  )
  await ies(replicaA, ['credentials', 'create', '--name', 'aws-dev', '--provider', 'aws', '--from-file', secretFile], cli)
  const envFile = file(
    'shop-dev.yaml',
    [
      'name: shop-dev',
      'globalPrefix: shop',
      'provider: aws',
      `region: ${REGION}`,
      'cloudCredential: aws-dev',
      `terraformBackend: { bucket: ${STATE_BUCKET}, region: ${REGION} }`,
      'services:',
      '  rds: { enabled: true, deletionProtection: false }',
      '  sqs: { enabled: true }',
      '  s3: { enabled: true }',
      'gitRepository:',
      `  url: ${repoUrl}`,
      '  branch: main',
      '',
    ].join('\n'),
  )
  await ies(replicaA, ['apply', '-f', envFile], cli)
  await ies(replicaA, ['env', 'update', 'shop-dev', '-f', file('deploy-key.yaml', `gitRepository:\n  deployKey: ${deployKey}\n`)], cli)
  const environment = (await ies(replicaB, ['env', 'get', 'shop-dev'], cli)) as {
    id: string
    hasDeployKey?: boolean
    gitRepository?: { hasDeployKey?: boolean }
  }
  check(environment.id, 'replica B reads the environment applied through A')

  step('ies generate --out, through A (B runs the job)')
  const archive = path.join(work, 'shop-dev.zip')
  await ies(replicaA, ['generate', 'shop-dev', '--format', 'terraform', '--include-backend', '--out', archive], cli)
  const entries = execFileSync('unzip', ['-Z1', archive], { encoding: 'utf8' }).split('\n')
  check(
    entries.includes('terraform/backend.tf') && entries.includes('.ies/generation.json'),
    `the archive holds terraform/backend.tf and .ies/generation.json (${entries.length - 1} files)`,
  )

  step('ies push --no-wait through A, ies jobs wait through B')
  const queued = (await ies(replicaA, ['push', 'shop-dev', '--no-wait'], cli)) as { id: string }
  const push = (await ies(replicaB, ['jobs', 'wait', queued.id, '--timeout', '600'], cli)) as {
    status: string
    result?: { commit?: string }
  }
  check(push.status === 'succeeded', `push job ${queued.id} succeeded, read from replica B`)
  const head = (await git.git('shop-dev', ['rev-parse', 'main'])).trim()
  check(head === push.result?.commit, `the Git server's main is the pushed commit ${head.slice(0, 12)}`)
  const tree = await git.git('shop-dev', ['ls-tree', '-r', '--name-only', 'main'])
  check(tree.includes('README.md') && tree.includes('terraform/main.tf'), "the customer's README.md is kept beside terraform/")

  step('ies plan through A (B runs Terraform against moto)')
  const planned = (await ies(replicaA, ['plan', 'shop-dev', '--timeout', '600'], cli)) as {
    status: string
    result?: { summary?: { add: number; change: number; destroy: number }; dataAtRisk?: string[] }
  }
  const summary = planned.result?.summary
  check(
    planned.status === 'succeeded' && summary !== undefined && summary.add > 0 && summary.change === 0 && summary.destroy === 0,
    `the plan job succeeded: ${summary ? `${summary.add} to add, ${summary.change} to change, ${summary.destroy} to destroy` : 'no summary'}`,
  )

  step(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopAll().finally(() => process.exit(130)))
}
try {
  await main()
} catch (err) {
  console.error(`production smoke FAILED: ${(err as Error).stack ?? err}`)
  process.exitCode = 1
} finally {
  await stopAll()
}
