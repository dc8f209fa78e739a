// Starts FerretDB (MongoDB wire protocol, SQLite backend) on a loopback port with a data folder.
// Used by `npm start` (data in .data/) and by the test harness (a fresh temp folder per test file).
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, waitForPort } from './net.ts'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const FERRETDB_BIN = path.join(REPO_ROOT, '.tools/bin/ferretdb')

export interface RunningDatabase {
  uri: string
  port: number
  stop(): Promise<void>
}

export async function startFerretDB(opts: { dataDir: string; port?: number; database?: string }): Promise<RunningDatabase> {
  if (!existsSync(FERRETDB_BIN)) {
    throw new Error(`FerretDB is not built: run scripts/build-ferretdb.sh (expected ${FERRETDB_BIN})`)
  }
  mkdirSync(opts.dataDir, { recursive: true })
  const port = opts.port ?? (await freePort())
  const child = spawn(
    FERRETDB_BIN,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${opts.dataDir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${opts.dataDir}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  try {
    await waitForPort(port, 15_000, () => child.exitCode !== null)
  } catch (err) {
    child.kill('SIGKILL')
    throw new Error(`FerretDB did not start on port ${port}: ${stderr || (err as Error).message}`)
  }
  return {
    port,
    uri: `mongodb://127.0.0.1:${port}/${opts.database ?? 'ies'}`,
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}
