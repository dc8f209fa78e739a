// `npm start`: IES with embedded defaults on one machine. Starts FerretDB with its data in DATA_DIR
// (default .data/, relative to the repository; unless MONGODB_URI is set), keeps the development
// encryption key there (the server makes it, core/crypto.ts, unless ENCRYPTION_KEY is set), builds
// OPA (the rules' compiler) and the web UI when they are missing, and serves API, web UI and identity provider on one address. SIGTERM or SIGINT stops the server, then FerretDB (package.json runs this
// with `exec`, so that a signal sent to npm reaches it: `sh -c` does not pass signals on).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { loadConfig } from '../server/src/config.ts'
import { startServer, stopOnSignals } from '../server/src/main.ts'
import { FERRETDB_BIN, REPO_ROOT, startFerretDB, type RunningDatabase } from './services/ferretdb.ts'

const DATA = path.resolve(REPO_ROOT, process.env.DATA_DIR || '.data')
mkdirSync(DATA, { recursive: true })
const env = { ...process.env }

let database: RunningDatabase | undefined
if (!env.MONGODB_URI) {
  if (!existsSync(FERRETDB_BIN)) {
    console.log('Building FerretDB once (Go)…')
    execFileSync(path.join(REPO_ROOT, 'scripts/build-ferretdb.sh'), { stdio: 'inherit' })
  }
  database = await startFerretDB({ dataDir: path.join(DATA, 'ferretdb'), port: Number(env.FERRETDB_PORT ?? 27018) })
  env.MONGODB_URI = database.uri
}

// The organisation's rules are compiled with opa when the server starts (docs/policies.md).
if (!env.OPA_PATH && !existsSync(path.join(REPO_ROOT, '.tools/bin/opa'))) {
  console.log('Building OPA once (Go)…')
  execFileSync(path.join(REPO_ROOT, 'scripts/build-opa.sh'), { stdio: 'inherit' })
}

env.ENCRYPTION_KEY_FILE ??= path.join(DATA, 'encryption.key')

const webDist = path.join(REPO_ROOT, 'desktop/dist/index.html')
if (!existsSync(webDist) && existsSync(path.join(REPO_ROOT, 'desktop/vite.config.ts'))) {
  console.log('Building the web UI once…')
  execFileSync('npm', ['run', 'build', '-w', 'desktop'], { stdio: 'inherit', cwd: REPO_ROOT })
}

const config = loadConfig(env)
const app = await startServer(config, { idpKeysFile: path.join(DATA, 'idp-signing-keys.json') })
stopOnSignals(app, async () => database?.stop())

const embedded = !config.auth.url
console.log(`
IES is running.
  Web UI        ${config.publicUrl}/
  API           ${config.publicUrl}/api
  Health        ${config.publicUrl}/health
  Database      ${env.MONGODB_URI}
  Identity      ${embedded ? `${config.publicUrl}/realms/${config.auth.realm} (embedded)` : `${config.auth.url}/realms/${config.auth.realm}`}${
    embedded
      ? `
  Logins        dev / ${config.auth.devUserPassword}   admin / ${config.auth.devAdminPassword}
  CLI client    ${config.auth.cliClientId} / ${config.auth.cliClientSecret}
  A token       npm run token -- --user dev`
      : ''
  }
Press Ctrl-C to stop.`)
