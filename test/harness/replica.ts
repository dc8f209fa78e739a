// A second replica of the service as its own process (the real entry point, server/src/main.ts) on
// a test app's database and identity provider; killed at teardown. Its own process, because Agenda
// leaves a timer of up to half the scan interval behind every job it ran, which would keep a test
// file's process alive.
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { freePort, waitForPort } from '../../scripts/services/net.ts'
import type { TestApp } from './app.ts'

export interface Replica {
  url: string
  child: ChildProcess
  /** The end of what the process wrote to stderr (a crash's stack), for a failure message. */
  stderr(): string
  /** SIGKILL, and the exit awaited. */
  kill(): Promise<void>
}

export async function startReplicaProcess(
  t: { teardown(fn: () => unknown): void },
  app: TestApp,
  env: Record<string, string>,
): Promise<Replica> {
  const port = await freePort()
  // BENCH_SERVER_NODE_ARGS: Node flags for the server process (the benchmarks' profiling knob, as in scripts/bench/cannon.ts).
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.resolve('server/src/main.ts')], {
    env: {
      ...process.env,
      ...env,
      NODE_ENV: 'test',
      PORT: String(port),
      MONGODB_URI: app.db.uri,
      AUTH_URL: app.issuer.authUrl,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_IP_MAX: '1000000',
      RATE_LIMIT_USER_MAX: '1000000',
      ENCRYPTION_KEY: app.config.encryption.key ?? '',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  // A profiled server is stopped gently first: Node writes its profile on exit, not when killed.
  const stop = async () => {
    if (nodeArgs.length > 0 && child.exitCode === null) {
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))])
    }
    await kill()
  }
  t.teardown(stop)
  await waitForPort(port, 60_000, () => child.exitCode !== null)
  return { url: `http://127.0.0.1:${port}`, child, kill, stderr: () => stderr }
}
