// One way to run a local service as a child process: spawn it, wait until its loopback port
// accepts connections (or fail with the tail of its stderr), and stop it with SIGTERM, then SIGKILL.
import { spawn } from 'node:child_process'
import { waitForPort } from './net.ts'

export interface ChildService {
  port: number
  stop(): Promise<void>
  /** Sends a signal (fault tests: SIGSTOP makes the service hang with its sockets open, SIGCONT resumes it). */
  signal(name: NodeJS.Signals): void
}

export interface ChildServiceOptions {
  name: string
  command: string
  args: string[]
  port: number
  env?: NodeJS.ProcessEnv
  startTimeoutMs?: number
  /** Added to the error when it does not start (how to install it, for example). */
  hint?: string
}

export async function startChildService(opts: ChildServiceOptions): Promise<ChildService> {
  const child = spawn(opts.command, opts.args, { env: opts.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
  child.once('error', (err) => (stderr += `\n${err.message}`))
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  try {
    await waitForPort(opts.port, opts.startTimeoutMs ?? 30_000, () => child.exitCode !== null || child.killed)
  } catch (err) {
    child.kill('SIGKILL')
    const hint = opts.hint ? ` (${opts.hint})` : ''
    throw new Error(`${opts.name} did not start on port ${opts.port}${hint}: ${stderr.trim() || (err as Error).message}`)
  }
  return {
    port: opts.port,
    signal: (name) => void child.kill(name),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}
