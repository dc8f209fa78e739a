// The plugin inside another Fastify app (as buildApp mounts it), its logs, its persisted keys, and
// the `npm run token` script.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { promisify } from 'node:util'
import Fastify from 'fastify'
import { identityProviderPlugin, loadOrCreateSigningKeys } from '../../../server/src/idp/index.ts'
import {
  APP_CLIENT_ID,
  CLI_CLIENT_ID,
  TEST_CLI_SECRET,
  TEST_PASSWORDS,
  TEST_USERS,
  getClientCredentialsToken,
  getUserToken,
  introspect,
  jwtClaims,
  jwtHeader,
  logout,
  refreshToken,
  startTestIdentityProvider,
} from '../../harness/identity.ts'

const ROOT = path.resolve(import.meta.dirname, '../../..')

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

t.test('mounted in an app with a JSON body parser and a logger: flows work, no secret is logged', async (t) => {
  let logs = ''
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk.toString()
      done()
    },
  })
  // As buildApp does: the issuer is the app's own public address, known before listening.
  const port = await freePort()
  const mounted = Fastify({ logger: { level: 'trace', stream } })
  mounted.post('/api/echo', async (request) => ({ body: request.body }))
  await mounted.register(identityProviderPlugin, {
    issuerBaseUrl: `http://127.0.0.1:${port}`,
    cliClientSecret: TEST_CLI_SECRET,
    users: TEST_USERS,
  })
  await mounted.listen({ host: '127.0.0.1', port })
  t.teardown(() => mounted.close())
  const authUrl = `http://127.0.0.1:${port}`

  const echo = await fetch(`${authUrl}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })
  t.same(await echo.json(), { body: { a: 1 } }, "the app's own JSON parser is untouched")

  const tokens = await getUserToken({ authUrl, username: 'admin' })
  t.equal(jwtClaims(tokens.access_token).iss, `${authUrl}/realms/ies`)
  const refreshed = await refreshToken({ authUrl, refreshToken: tokens.refresh_token! })
  const service = await getClientCredentialsToken({ authUrl })
  await introspect({ authUrl, realm: 'ies', clientId: CLI_CLIENT_ID, clientSecret: TEST_CLI_SECRET, token: refreshed.access_token })
  await logout({ authUrl, realm: 'ies', clientId: APP_CLIENT_ID, refreshToken: refreshed.refresh_token! })

  t.ok(logs.includes('/realms/ies/protocol/openid-connect/token'), 'requests are logged')
  const secrets = {
    'admin password': TEST_PASSWORDS.admin,
    'client secret': TEST_CLI_SECRET,
    'access token': tokens.access_token,
    'refresh token': tokens.refresh_token!,
    'rotated refresh token': refreshed.refresh_token!,
    'service token': service.access_token,
  }
  for (const [name, value] of Object.entries(secrets)) t.notOk(logs.includes(value), `no ${name} in the logs`)
})

t.test('loadOrCreateSigningKeys keeps the key across restarts, readable by the owner only', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-idp-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'nested', 'idp-signing-keys.json')
  const first = await loadOrCreateSigningKeys(file)
  t.equal(first.length, 1)
  t.equal((await stat(file)).mode & 0o777, 0o600)
  const second = await loadOrCreateSigningKeys(file)
  t.same(second, first, 'the same keys are read back')
  t.match(JSON.parse(await readFile(file, 'utf8')), { keys: [{ kty: 'RSA', kid: first[0]!.kid, alg: 'RS256' }] })

  const idp = await startTestIdentityProvider({ signingKeys: second })
  t.teardown(() => idp.close())
  const tokens = await getUserToken({ authUrl: idp.authUrl, username: 'dev' })
  t.equal(jwtHeader(tokens.access_token).kid, first[0]!.kid, 'tokens are signed with the persisted key')
})

t.test('npm run token prints an access token for a development user', async (t) => {
  const idp = await startTestIdentityProvider()
  t.teardown(() => idp.close())
  const run = promisify(execFile)
  const { AUTH_URL: _ignored, ...inherited } = process.env
  const env = { ...inherited, DEV_USER_PASSWORD: TEST_PASSWORDS.dev, DEV_ADMIN_PASSWORD: TEST_PASSWORDS.admin }
  const tsx = path.join(ROOT, 'node_modules/.bin/tsx')
  const { stdout } = await run(tsx, ['scripts/token.ts', '--user', 'admin', '--url', idp.authUrl], { cwd: ROOT, env })
  const token = stdout.trim()
  t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'one JWT on stdout')
  t.match(jwtClaims(token), { preferred_username: 'admin', iss: idp.issuer })

  const failed = await run(tsx, ['scripts/token.ts', '--user', 'dev', '--url', idp.authUrl], {
    cwd: ROOT,
    env: { ...env, DEV_USER_PASSWORD: 'wrong' },
  }).catch((err: { code: number; stdout: string; stderr: string }) => err)
  t.equal((failed as { code: number }).code, 1, 'a wrong password exits 1')
  t.equal((failed as { stdout: string }).stdout, '', 'nothing on stdout')
})
