// Starts a throwaway redis-server (Debian's package) on a free loopback port, without persistence.
import { spawnSync } from 'node:child_process'
import { freePort } from './net.ts'
import { startChildService } from './child-service.ts'

export function redisAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0
}

export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort()
  const service = await startChildService({
    name: 'redis-server',
    command: 'redis-server',
    args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    port,
    startTimeoutMs: 10_000,
    hint: 'apt-get install redis-server',
  })
  return { url: `redis://127.0.0.1:${port}`, stop: service.stop }
}
