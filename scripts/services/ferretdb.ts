// Starts FerretDB (MongoDB wire protocol, SQLite backend) on a loopback port with a data folder.
// Used by `npm start` (data in .data/) and by the test harness (a fresh temp folder per test file).
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './net.ts'
import { startChildService } from './child-service.ts'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const FERRETDB_BIN = path.join(REPO_ROOT, '.tools/bin/ferretdb')

export interface RunningDatabase {
  uri: string
  port: number
  stop(): Promise<void>
  signal(name: NodeJS.Signals): void
}

export async function startFerretDB(opts: { dataDir: string; port?: number; database?: string }): Promise<RunningDatabase> {
  if (!existsSync(FERRETDB_BIN)) {
    throw new Error(`FerretDB is not built: run scripts/build-ferretdb.sh (expected ${FERRETDB_BIN})`)
  }
  mkdirSync(opts.dataDir, { recursive: true })
  const port = opts.port ?? (await freePort())
  const service = await startChildService({
    name: 'FerretDB',
    command: FERRETDB_BIN,
    args: [
      '--handler=sqlite',
      `--sqlite-url=file:${opts.dataDir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${opts.dataDir}`,
      `--debug-addr=${process.env.FERRETDB_DEBUG_ADDR ?? '-'}`,
      '--telemetry=disable',
      '--log-level=error',
    ],
    port,
    startTimeoutMs: 15_000,
  })
  return {
    port,
    uri: `mongodb://127.0.0.1:${port}/${opts.database ?? 'ies'}`,
    stop: service.stop,
    signal: service.signal,
  }
}
