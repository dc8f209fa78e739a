// The `ies` command line under test: the real binary as a child process (the one file users install,
// built from the sources by the first runner of a test process: builtIes), against a real IES server (its own database) whose identity provider is the embedded provider running on its
// own port, as an external provider at AUTH_URL. Each run gets a clean environment: only the IES_*
// variables the test gives, a config directory of its own and a HOME of its own.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '@ies/server'
import { loadConfig, type Config } from '@ies/server/config'
import { buildBundleSync } from '../../cli/scripts/build.ts'
import { startTestDatabase } from '../harness/database.ts'
import { CLI_CLIENT_ID, startTestIdentityProvider, TEST_CLI_SECRET, type TestIdentityProvider } from '../harness/identity.ts'

/** The checkout's command (`npx ies`: the TypeScript sources through tsx). */
export const IES_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../cli/bin/ies.js')

let built: string | undefined

/**
 * The command the runners start unless told otherwise: `npm run build:cli`'s one file (what
 * docs/cli.md installs), built from the current sources once per test process. A run of it costs
 * about 0.1 s of CPU, a run of IES_BIN about 0.8 s (tsx and the sources loaded anew each time), and
 * the CLI tests run it a few hundred times. IES_BIN is run by help.test.ts and the README's steps
 * (test/docs/five-steps.test.ts).
 */
export function builtIes(): string {
  if (!built) {
    const dir = mkdtempSync(path.join(tmpdir(), 'ies-cli-bundle-'))
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    built = buildBundleSync(path.join(dir, 'ies.cjs'))
  }
  return built
}

interface Teardown {
  teardown(fn: () => unknown): void
}

/** A temporary folder, removed when the test ends. */
export function tempDir(t: Teardown, prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface CliServer {
  /** Registers cleanup with the test that started the server. */
  teardown(fn: () => unknown): void
  url: string
  idp: TestIdentityProvider
  config: Config
  /** The server itself, for a test that sets up stored state the API would refuse. */
  app: FastifyInstance
}

export async function startCliServer(t: Teardown, env: Record<string, string> = {}): Promise<CliServer> {
  const idp = await startTestIdentityProvider()
  t.teardown(() => idp.close())
  const db = await startTestDatabase(t)
  const config = loadConfig({
    NODE_ENV: 'test',
    MONGODB_URI: db.uri,
    AUTH_URL: idp.authUrl,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_IP_MAX: '1000000',
    RATE_LIMIT_USER_MAX: '1000000',
    JOBS_LOCK_LIFETIME_MS: '10000',
    ...env,
  })
  const app = await buildApp({ config, logger: false })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  config.publicUrl = url
  return { teardown: (fn) => t.teardown(fn), url, idp, config, app }
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

export interface IesRunner {
  /** The config directory of this runner (IES_CONFIG_DIR). */
  configDir: string
  /** Runs `ies <args>` to its end. */
  run(args: string[], env?: Record<string, string>): Promise<RunResult>
  /** Starts `ies <args>` and hands back the running process (for interactive flows). */
  start(args: string[], env?: Record<string, string>): ChildProcessWithoutNullStreams
  /** Every byte any run printed, to scan for secrets. */
  printed: string[]
}

/**
 * A runner for one server; `base` env (e.g. client credentials) is given to every run. `bin`: another
 * `ies` than builtIes() (IES_BIN, a copied bundle), run from `cwd` (default: the runner's HOME).
 */
export function iesRunner(server: CliServer, base: Record<string, string> = {}, opts: { bin?: string; cwd?: string } = {}): IesRunner {
  const home = tempDir(server, 'ies-cli-home-')
  const configDir = path.join(home, 'config')
  const printed: string[] = []
  const bin = opts.bin ?? builtIes()
  const childEnv = (env: Record<string, string>) => ({
    PATH: process.env.PATH ?? '',
    HOME: home,
    IES_CONFIG_DIR: configDir,
    IES_SERVER: server.url,
    ...base,
    ...env,
  })
  const start = (args: string[], env: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [bin, ...args], { env: childEnv(env), cwd: opts.cwd ?? home })
    child.stdout.on('data', (chunk: Buffer) => printed.push(chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => printed.push(chunk.toString()))
    return child
  }
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<RunResult>((resolve, reject) => {
      const child = start(args, env)
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      child.stdin.end()
      child.on('error', reject)
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
    })
  return { configDir, run, start, printed }
}

/** A running `ies login`: the device prompt it printed, its exit, and everything it wrote to stderr. */
export interface DeviceLogin {
  device: { uri: string; code: string }
  exited: Promise<number>
  stderr(): string
}

/** Starts `ies login` and waits for its device prompt ("open <uri>", "enter the code <code>"). */
export async function startLogin(ies: IesRunner, env: Record<string, string> = {}): Promise<DeviceLogin> {
  const login = ies.start(['login'], env)
  let stderr = ''
  const exited = new Promise<number>((resolve) => login.on('close', (code) => resolve(code ?? -1)))
  const device = await new Promise<{ uri: string; code: string }>((resolve, reject) => {
    login.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const uri = /open (\S+)\n/.exec(stderr)?.[1]
      const code = /enter the code (\S+)/.exec(stderr)?.[1]
      if (uri && code) resolve({ uri, code })
    })
    login.on('close', () => reject(new Error(`ies login ended early: ${stderr}`)))
  })
  return { device, exited, stderr: () => stderr }
}

/** Client credentials of the test provider's confidential client, as a pipeline sets them. */
export const PIPELINE_ENV = { IES_CLIENT_ID: CLI_CLIENT_ID, IES_CLIENT_SECRET: TEST_CLI_SECRET }

/** Nothing any run printed holds one of `secrets`, the client secret, or a JWT. */
export function assertNothingSecret(
  t: { ok(v: unknown, m: string): void; notOk(v: unknown, m: string): void; notMatch(v: string, re: RegExp, m: string): void },
  ies: IesRunner,
  secrets: string[],
): void {
  const all = ies.printed.join('')
  t.ok(all.length > 1000, 'the runs printed something')
  for (const [i, secret] of [...secrets, TEST_CLI_SECRET].entries()) t.notOk(all.includes(secret), `secret ${i + 1} never printed`)
  t.notMatch(all, /eyJ[\w-]{10,}\.[\w-]{10,}\./, 'no token')
}

/** JSON on stdout, or a readable failure. */
export function parseJson(result: RunResult): any {
  try {
    return JSON.parse(result.stdout)
  } catch {
    throw new Error(`not JSON (exit ${result.code}): ${result.stdout}\nstderr: ${result.stderr}`)
  }
}
