// Starts a throwaway redis-server (Debian's package) on a free loopback port, without persistence.
import { spawn, spawnSync } from 'node:child_process'
import { freePort, waitForPort } from './net.ts'

export function redisAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0
}

export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort()
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitForPort(port, 10_000, () => child.exitCode !== null)
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      await exited
    },
  }
}
