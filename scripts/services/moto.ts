// Starts moto's server mode (a local AWS API: STS, IAM, S3, ...) on a free loopback port.
// Needs Python with `pip install 'moto[server]'`; PYTHON names the interpreter (default python3).
import { spawn } from 'node:child_process'
import { freePort, waitForPort } from './net.ts'

export interface RunningMoto {
  /** The endpoint to give the AWS SDK (`endpoint`, or AWS_ENDPOINT_URL). */
  endpoint: string
  port: number
  stop(): Promise<void>
}

export interface MotoOptions {
  port?: number
  /**
   * Turns moto's request authentication on after this many AWS actions (its
   * INITIAL_NO_AUTH_ACTION_COUNT): from then on only keys created in moto's IAM, signed with
   * their secret, are accepted. Unset: authentication stays off.
   */
  authAfterActions?: number
}

export async function startMoto(opts: MotoOptions = {}): Promise<RunningMoto> {
  const port = opts.port ?? (await freePort())
  const env: NodeJS.ProcessEnv = { ...process.env, AWS_DEFAULT_REGION: 'us-east-1' }
  delete env.INITIAL_NO_AUTH_ACTION_COUNT
  if (opts.authAfterActions !== undefined) env.INITIAL_NO_AUTH_ACTION_COUNT = String(opts.authAfterActions)
  const child = spawn(process.env.PYTHON ?? 'python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.once('error', (err) => (stderr += `\n${err.message}`))
  try {
    await waitForPort(port, 30_000, () => child.exitCode !== null || child.killed)
  } catch (err) {
    child.kill('SIGKILL')
    throw new Error(`moto did not start on port ${port} (pip install 'moto[server]'): ${stderr || (err as Error).message}`)
  }
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}
