// A database for one test file: a fresh FerretDB in a temp folder, or, when MONGODB_URI is set, a
// uniquely named database on that server (so the same suite runs against a real MongoDB).
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { startFerretDB, type RunningDatabase } from '../../scripts/services/ferretdb.ts'

export interface TestDatabase {
  uri: string
  client: MongoClient
  /** Only for FerretDB started here: stop and start it again on the same port and data (fault tests). */
  server?: RunningDatabase & { restart(): Promise<void>; dataDir: string }
}

interface Teardown {
  teardown(fn: () => unknown): void
}

export async function startTestDatabase(t: Teardown): Promise<TestDatabase> {
  const external = process.env.MONGODB_URI
  if (external) {
    const url = new URL(external)
    url.pathname = `/ies_test_${randomBytes(6).toString('hex')}`
    const uri = url.toString()
    const client = await new MongoClient(uri).connect()
    t.teardown(async () => {
      await client
        .db()
        .dropDatabase()
        .catch(() => {})
      await client.close()
    })
    return { uri, client }
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ies-ferretdb-'))
  let running = await startFerretDB({ dataDir })
  const port = running.port
  const server = {
    get uri() {
      return running.uri
    },
    port,
    /** The folder of FerretDB's SQLite files (one `<database>.sqlite` per database). */
    dataDir,
    stop: () => running.stop(),
    signal: (name: NodeJS.Signals) => running.signal(name),
    async restart() {
      await running.stop()
      running = await startFerretDB({ dataDir, port })
    },
  }
  const client = await new MongoClient(running.uri, { serverSelectionTimeoutMS: 3000 }).connect()
  t.teardown(async () => {
    await client.close().catch(() => {})
    await running.stop()
    await rm(dataDir, { recursive: true, force: true })
  })
  return { uri: running.uri, client, server }
}
