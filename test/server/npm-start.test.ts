// The README's first command, for real: `npm start` from the repository with embedded defaults (its own
// FerretDB, a data folder of its own here, free ports) answers /health with its data and development key
// in DATA_DIR, and a SIGTERM sent to npm, as a supervisor or container runtime sends it, stops the
// server and its FerretDB.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { REPO_ROOT } from '../../scripts/services/ferretdb.ts'

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) if (await check()) return
  throw new Error(`timed out: ${what}`)
}

t.test('npm start answers /health, and a SIGTERM to npm stops the server and its FerretDB', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ies-npm-start-'))
  const [port, dbPort] = [await freePort(), await freePort()]
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), FERRETDB_PORT: String(dbPort), DATA_DIR: dataDir }
  // Embedded defaults: whatever the test run configures for itself is not the quick start's.
  for (const name of ['MONGODB_URI', 'NODE_ENV', 'PUBLIC_URL', 'AUTH_URL', 'ENCRYPTION_KEY', 'ENCRYPTION_KEY_FILE', 'REDIS_URL'])
    delete env[name]
  let output = ''
  const npm = spawn('npm', ['start'], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  npm.stdout.on('data', (chunk) => (output += chunk))
  npm.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)))
  t.teardown(async () => {
    try {
      process.kill(-npm.pid!, 'SIGKILL') // the whole group, should anything be left
    } catch {
      // gone already
    }
    await rm(dataDir, { recursive: true, force: true })
  })

  await until('/health', async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200, 120_000).catch(
    (err) => {
      t.comment(output.slice(-3000))
      throw err
    },
  )
  t.ok(await listening(dbPort), 'its FerretDB listens')
  t.ok(existsSync(path.join(dataDir, 'ferretdb')), "FerretDB's files in DATA_DIR")
  t.equal((await stat(path.join(dataDir, 'encryption.key'))).mode & 0o777, 0o600, 'the development key in DATA_DIR, for its owner only')
  t.match(output, /IES is running/)

  npm.kill('SIGTERM')
  t.equal(await exited, 0, 'npm ends with the server')
  await until('the ports are released', async () => !(await listening(port)) && !(await listening(dbPort)), 20_000)
  t.pass('server and FerretDB stopped')
})
