// Shared by the HTTP benchmarks and the load test: start scripts/bench/servers.ts in a child process,
// and run autocannon against it (loopback only), summarised.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon, { type Options, type Result } from 'autocannon'
import type { BenchServers } from './servers.ts'

const HERE = path.dirname(fileURLToPath(import.meta.url))

export interface Started {
  servers: BenchServers
  stop(): Promise<void>
}

/**
 * Starts the benchmark services in their own process; extra IES configuration in `env`. Node options
 * for that process in BENCH_SERVER_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile
 * the server side of a benchmark.
 */
export async function startServers(env: Record<string, string> = {}, timeoutMs = 120_000): Promise<Started> {
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const args = [
    ...nodeArgs,
    '--import',
    'tsx',
    path.join(HERE, 'servers.ts'),
    ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
  ]
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode !== null) return
    child.stdin!.end()
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(timer)
  }
  const lines = createInterface({ input: child.stdout! })
  const first = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`bench servers exited (${code}) before they were ready`)))
    setTimeout(() => reject(new Error(`bench servers not ready within ${timeoutMs} ms`)), timeoutMs).unref()
  })
  try {
    return { servers: JSON.parse(await first) as BenchServers, stop }
  } catch (err) {
    await stop()
    throw err
  }
}

export interface Run {
  /** Requests per second, mean over the run. */
  rps: number
  p50: number
  p99: number
  total: number
  errors: number
  timeouts: number
  /** Answers other than the expected status. */
  unexpected: number
  statuses: Record<string, number>
}

/** One autocannon run; `expect` is the status every answer must have (or a set of them). */
export async function cannon(opts: Options, expect: number | number[] = 200): Promise<Run> {
  if (!/^http:\/\/127\.0\.0\.1:/.test(opts.url)) throw new Error('benchmarks only send traffic to 127.0.0.1')
  const result: Result = await autocannon({ connections: 10, duration: 5, timeout: 30, ...opts })
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]))
  const expected = new Set(Array.isArray(expect) ? expect : [expect])
  const unexpected = Object.entries(statuses).reduce((n, [code, count]) => n + (expected.has(Number(code)) ? 0 : count), 0)
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    unexpected,
    statuses,
  }
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
