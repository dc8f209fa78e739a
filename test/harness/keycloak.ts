// A real Keycloak for the interop tests: the Quarkus distribution installed by
// scripts/keycloak/install.sh into .tools/, started in dev mode on free loopback ports with an
// in-memory database and the realm of scripts/keycloak/realm.json, stopped (process group) on teardown.
import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const REALM_FILE = path.join(ROOT, 'scripts/keycloak/realm.json')
/** Keycloak 26.6+ supports JDK 25; KEYCLOAK_JAVA_HOME overrides. */
const TEMURIN_25 = '/usr/lib/jvm/temurin-25-jdk-amd64'

/** The realm file's test credentials (development values, also used by test/harness/identity.ts). */
export const KEYCLOAK_REALM = 'ies'
export const KEYCLOAK_CLI_SECRET = 'ies-cli-test-secret'

/** The newest installed `.tools/keycloak-<version>` with a `bin/kc.sh`, if any. */
export function keycloakHome(): string | undefined {
  const tools = path.join(ROOT, '.tools')
  if (!existsSync(tools)) return undefined
  const versions = readdirSync(tools)
    .filter((name) => /^keycloak-\d+(\.\d+)*$/.test(name) && existsSync(path.join(tools, name, 'bin/kc.sh')))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  const newest = versions.at(-1)
  return newest ? path.join(tools, newest) : undefined
}

export function keycloakJavaHome(): string | undefined {
  if (process.env.KEYCLOAK_JAVA_HOME) return process.env.KEYCLOAK_JAVA_HOME
  if (existsSync(path.join(TEMURIN_25, 'bin/java'))) return TEMURIN_25
  return process.env.JAVA_HOME
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface RunningKeycloak {
  authUrl: string
  realm: string
  issuer: string
  /** Milliseconds from spawn until the realm answered. */
  startMs: number
  /** The server log (for failure messages). */
  logFile: string
  /** Its process group (kc.sh and the JVM), for a supervisor that must be able to stop it. */
  pid: number
  close(): Promise<void>
}

function stop(child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal)
      } catch {
        // already gone
      }
    }
    const timer = setTimeout(() => kill('SIGKILL'), timeoutMs)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    kill('SIGTERM')
  })
}

export async function startKeycloak(opts: { home?: string; timeoutMs?: number } = {}): Promise<RunningKeycloak> {
  const home = opts.home ?? keycloakHome()
  if (!home) throw new Error('Keycloak is not installed: run scripts/keycloak/install.sh')
  const work = mkdtempSync(path.join(os.tmpdir(), 'ies-keycloak-'))
  // start-dev imports realms from <home>/data/import only; the database is in memory (nothing else persists).
  const importDir = path.join(home, 'data/import')
  mkdirSync(importDir, { recursive: true })
  copyFileSync(REALM_FILE, path.join(importDir, 'ies-realm.json'))
  const [httpPort, managementPort] = [await freePort(), await freePort()]
  const authUrl = `http://127.0.0.1:${httpPort}`
  const logFile = path.join(work, 'keycloak.log')
  const log = createWriteStream(logFile)
  const javaHome = keycloakJavaHome()
  const started = Date.now()
  const child = spawn(
    path.join(home, 'bin/kc.sh'),
    [
      'start-dev',
      `--http-port=${httpPort}`,
      '--http-host=127.0.0.1',
      `--http-management-port=${managementPort}`,
      '--import-realm',
      '--db=dev-mem',
      '--cache=local',
    ],
    {
      cwd: work,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...(javaHome ? { JAVA_HOME: javaHome } : {}),
        // C1 only (no C2 compiler): a test's Keycloak lives a minute, too short for C2's optimised code to
        // pay back its compiling; it starts with about 40 % less CPU.
        JAVA_OPTS_APPEND: `-Djava.io.tmpdir=${work} -XX:TieredStopAtLevel=1`,
      },
    },
  )
  child.stdout!.pipe(log)
  child.stderr!.pipe(log)
  let exited = false
  child.once('exit', () => {
    exited = true
  })
  const close = async () => {
    await stop(child)
    log.end()
    rmSync(work, { recursive: true, force: true })
  }
  const timeoutMs = opts.timeoutMs ?? 240_000
  const discovery = `${authUrl}/realms/${KEYCLOAK_REALM}/.well-known/openid-configuration`
  while (Date.now() - started < timeoutMs) {
    if (exited) break
    try {
      const response = await fetch(discovery)
      if (response.ok) {
        return {
          authUrl,
          realm: KEYCLOAK_REALM,
          issuer: `${authUrl}/realms/${KEYCLOAK_REALM}`,
          startMs: Date.now() - started,
          logFile,
          pid: child.pid!,
          close,
        }
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n') : ''
  await close()
  throw new Error(`Keycloak did not start within ${timeoutMs} ms${exited ? ' (it exited)' : ''}:\n${tail}`)
}
