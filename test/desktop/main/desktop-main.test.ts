// The Electron main process's own logic, in Node (no Electron binary): settings, the encrypted
// token store, and the API proxy that adds the bearer token and refuses anything but the API.
import t from 'tap'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { desktopSettings } from '../../../desktop/src/main/settings.ts'
import { encryptedTokenStore } from '../../../desktop/src/main/refresh-token-store.ts'
import { proxyApiRequest } from '../../../desktop/src/main/api-proxy.ts'
import { bridgeFetch, type DesktopBridge } from '../../../desktop/src/shared/bridge.ts'
import { createApiClient } from '@ies/api'

t.test('settings: environment over settings.json over defaults', async (t) => {
  t.same(desktopSettings({}), {
    apiUrl: 'http://127.0.0.1:3000/api',
    authUrl: 'http://127.0.0.1:3000',
    realm: 'ies',
    clientId: 'ies-app',
    useRuntimeCatalog: true,
  })
  const s = desktopSettings(
    { IES_SERVER_URL: 'https://ies.example.com/', IES_USE_RUNTIME_CATALOG: 'false' },
    { AUTH_URL: 'https://id.example.com', AUTH_REALM: 'corp' },
  )
  t.same(s, {
    apiUrl: 'https://ies.example.com/api',
    authUrl: 'https://id.example.com',
    realm: 'corp',
    clientId: 'ies-app',
    useRuntimeCatalog: false,
  })
})

t.test('token store: encrypted at rest, memory only without OS encryption', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-store-'))
  const file = path.join(dir, 'session.bin')
  const fake = {
    isEncryptionAvailable: () => true,
    encryptString: (s: string) => Buffer.from(s).reverse(),
    decryptString: (b: Buffer) => Buffer.from(b).reverse().toString(),
  }
  const tokens = { accessToken: 'a', refreshToken: 'secret-refresh', idToken: null, expiresAt: 1, refreshExpiresAt: 2 }
  await encryptedTokenStore(file, fake).save(tokens)
  t.notMatch((await readFile(file)).toString(), 'secret-refresh', 'the file holds no plain token')
  t.same(await encryptedTokenStore(file, fake).load(), tokens, 'a new process reads it back')
  const store = encryptedTokenStore(file, fake)
  await store.clear()
  t.equal(await store.load(), null)
  const none = encryptedTokenStore(path.join(dir, 'other.bin'), { ...fake, isEncryptionAvailable: () => false })
  await none.save(tokens)
  t.same(await none.load(), tokens)
  t.equal(await encryptedTokenStore(path.join(dir, 'other.bin'), fake).load(), null, 'nothing was written')
})

t.test('API proxy: adds the token, passes only safe headers, refuses other hosts', async (t) => {
  const seen: http.IncomingHttpHeaders[] = []
  const server = http.createServer((req, res) => {
    seen.push(req.headers)
    res
      .writeHead(200, { 'content-type': 'application/json', etag: '"c1"' })
      .end(JSON.stringify({ data: { ok: true, path: req.url }, meta: {} }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
  const token = async () => 'the-token'
  const bridge = { request: (req) => proxyApiRequest(apiUrl, req, token) } as DesktopBridge
  const api = createApiClient({ baseUrl: apiUrl, auth: { getToken: async () => null }, fetch: bridgeFetch(bridge) })
  t.same(await api.me(), { ok: true, path: '/api/users/me' })
  t.equal(seen[0].authorization, 'Bearer the-token')
  await proxyApiRequest(
    apiUrl,
    { url: `${apiUrl}/x`, method: 'GET', headers: { authorization: 'Bearer forged', cookie: 'c', 'if-none-match': '"c0"' } },
    token,
  )
  t.equal(seen[1].authorization, 'Bearer the-token', 'the renderer cannot set its own authorization')
  t.equal(seen[1].cookie, undefined)
  t.equal(seen[1]['if-none-match'], '"c0"')
  await t.rejects(proxyApiRequest(apiUrl, { url: 'http://169.254.169.254/latest', method: 'GET', headers: {} }, token), {
    name: 'ProxyRefused',
  })
  await t.rejects(proxyApiRequest(apiUrl, { url: apiUrl.replace('/api', '/realms/x'), method: 'GET', headers: {} }, token), {
    name: 'ProxyRefused',
  })
})
