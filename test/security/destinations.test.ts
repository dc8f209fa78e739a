// Network destinations: every address a push, a templates repository or a
// processor clone may reach is classified by ipaddr.js, IPv4 inside IPv6 transition forms included;
// the socket connects only to the address its own lookup checked (no DNS-rebinding window); the
// processor service's git routes apply the same rule with their own allow-list; a Git server that
// accepts and then stalls fails the request after the configured timeout instead of holding it.
import net from 'node:net'
import t from 'tap'
import * as git from 'isomorphic-git'
import { buildProcessorService } from '@ies/processor-lib'
import { addressProblem, destinationHttp, DestinationRefused } from '@ies/processor-lib/network/destination'
import { checkDestination, DestinationError } from '@ies/server/jobs/push/destination'
import { startTestApp } from '../harness/app.ts'
import { startGitServer } from '../harness/git-server.ts'
import { environmentBody } from '../harness/jobs.ts'

/** True when the promise rejects with an instance of `type` (its message printed on failure). */
async function refusedBy(promise: Promise<unknown>, type: new (...args: any[]) => Error): Promise<boolean> {
  try {
    await promise
    return false
  } catch (err) {
    if (!(err instanceof type)) console.error('unexpected error', err)
    return err instanceof type
  }
}

/** Every form of an internal address the adversarial pass found let through, and the classic ones. */
const INTERNAL = [
  '::7f00:1', // IPv4-compatible 127.0.0.1
  '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
  '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
  '64:ff9b:1::a00:1', // local-use NAT64 (RFC 8215) of 10.0.0.1
  '2002:7f00:1::', // 6to4 of 127.0.0.1
  '2002:a9fe:a9fe::1', // 6to4 of 169.254.169.254 (cloud metadata)
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
  '2001:0:a00:1:8000:63bf:3fff:fdd2', // Teredo, server 10.0.0.1
  'fec0::1', // site-local
  '198.18.0.1', // benchmarking
  '224.0.0.1', // multicast
  '240.0.0.1', // reserved
  '255.255.255.255', // broadcast
  '127.0.0.1',
  '10.1.2.3',
  '172.16.0.1',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '192.0.2.1', // documentation
  '::',
  '::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  'fe80::1',
  'fc00::1',
  'fd12:3456::1',
  'ff02::1',
  '2001:db8::1', // documentation
  '100::1', // discard
  '4000::1', // outside global unicast
]
const PUBLIC = [
  '8.8.8.8',
  '140.82.112.3',
  '2606:4700:4700::1111',
  '2a00:1450:4001:82a::200e',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '::ffff:8.8.8.8',
]

t.test('addresses are classified with ipaddr.js, embedded IPv4 included', async (t) => {
  for (const address of INTERNAL) t.ok(addressProblem(address), `${address} is refused (${addressProblem(address)})`)
  for (const address of PUBLIC) t.equal(addressProblem(address), null, `${address} is public`)
  t.ok(addressProblem('not-an-address'), 'a name is not an address')
})

t.test('the push check refuses every internal form, before any network access', async (t) => {
  for (const address of INTERNAL) {
    const host = address.includes(':') ? `[${address}]` : address
    t.ok(await refusedBy(checkDestination(`https://${host}/acme/shop.git`, []), DestinationError), `https://${host}/ refused`)
  }
  t.ok(
    await refusedBy(checkDestination('https://localhost/acme/shop.git', []), DestinationError),
    'a name resolving to loopback is refused',
  )
  await t.resolves(checkDestination('https://127.0.0.1/acme/shop.git', ['127.0.0.1']), 'unless PUSH_ALLOWED_HOSTS names it')
})

t.test('an internal address in a transition form is refused when the environment is saved, naming gitRepository.url', async (t) => {
  const { url, auth } = await startTestApp(t)
  const headers = { ...auth('dev'), 'content-type': 'application/json' }
  for (const [i, host] of ['[::7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '198.18.0.1'].entries()) {
    const body = {
      ...environmentBody({ name: `dest-${i}-env` }),
      gitRepository: { url: `https://${host}/acme/shop.git`, deployKey: 'token-1' },
    }
    const created = await fetch(`${url}/api/environments`, { method: 'POST', headers, body: JSON.stringify(body) })
    const answer = (await created.json()) as any
    t.equal(created.status, 400, `${host}: refused when saved, not only at push time`)
    t.equal(answer.error.details?.[0]?.field, 'gitRepository.url', `${host}: names gitRepository.url`)
    t.match(answer.error.details?.[0]?.message, /is not a public address/, `${host}: says why`)
  }
})

t.test('the connection itself is checked: the socket lookup refuses what it resolves', async (t) => {
  const server = await startGitServer()
  t.teardown(() => server.stop())
  const repo = await server.createRepo('templates', { 'README.md': 'x\n' })
  const byName = repo.replace('127.0.0.1', 'localhost')
  const refs = (http: ReturnType<typeof destinationHttp>, url: string) => git.listServerRefs({ http, url, prefix: 'refs/heads/' })

  // No check before: only the HTTP client's own lookup stands between the request and loopback.
  const strict = destinationHttp({ allowedHosts: [], allowSetting: 'TEST_ALLOWED_HOSTS', idleTimeoutMs: 10_000 })
  t.ok(await refusedBy(refs(strict, byName), DestinationRefused), 'a name resolving to loopback is refused when the socket resolves it')
  t.ok(await refusedBy(refs(strict, repo), DestinationRefused), 'a loopback IP literal is refused')
  const allowed = destinationHttp({ allowedHosts: ['localhost'], allowSetting: 'TEST_ALLOWED_HOSTS', idleTimeoutMs: 10_000 })
  t.ok(
    (await refs(allowed, byName)).some((r) => r.ref === 'refs/heads/main'),
    'an allow-listed name is reached',
  )
})

/** A TCP server that accepts connections and never answers. */
async function stallingServer(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
}

t.test('a Git server that accepts and stalls fails after the timeout', async (t) => {
  const stalled = await stallingServer(t)
  const http = destinationHttp({ allowedHosts: ['127.0.0.1'], allowSetting: 'TEST_ALLOWED_HOSTS', idleTimeoutMs: 300 })
  await t.rejects(
    git.listServerRefs({ http, url: `${stalled}/x.git` }),
    { code: 'ETIMEDOUT' },
    'the request fails instead of waiting forever',
  )
})

t.test('processor service: the same rule, its own allow-list, the stall timeout', async (t) => {
  const token = 'destination-test-token'
  const server = await startGitServer()
  t.teardown(() => server.stop())
  const repo = await server.createRepo('templates', { 'README.md': 'x\n' })
  const port = new URL(repo).port
  const stalled = await stallingServer(t)

  const start = async (opts: { allowedHosts?: string[]; gitTimeoutMs?: number }) => {
    const app = await buildProcessorService({ token, ...opts })
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    t.teardown(() => app.close())
    return {
      download: (url: string) =>
        fetch(`${base}/process-git-download`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-token': token },
          body: JSON.stringify({ url, config: {}, format: 'json' }),
        }),
      catalog: (url: string) => fetch(`${base}/catalog?url=${encodeURIComponent(url)}`, { headers: { 'x-service-token': token } }),
    }
  }

  const strict = await start({})
  for (const url of [
    repo,
    `http://[::ffff:7f00:1]:${port}/templates.git`,
    `http://[::7f00:1]:${port}/templates.git`,
    `http://localhost:${port}/templates.git`,
  ]) {
    for (const [route, res] of [
      ['POST /process-git-download', await strict.download(url)],
      ['GET /catalog?url=', await strict.catalog(url)],
    ] as const) {
      const body = (await res.json()) as any
      t.equal(res.status, 400, `${route} ${url}: 400`)
      t.equal(body.error?.code, 'DESTINATION_REFUSED', `${route} ${url}: DESTINATION_REFUSED`)
      t.match(body.error?.message, /PROCESSOR_ALLOWED_HOSTS/, `${route}: names the allow-list setting`)
    }
  }

  const allowing = await start({ allowedHosts: ['127.0.0.1'], gitTimeoutMs: 500 })
  const cloned = await allowing.download(repo)
  t.equal(cloned.status, 200, 'an allow-listed loopback Git server is cloned')
  for (const [route, res] of [
    ['POST /process-git-download', await allowing.download(`${stalled}/x.git`)],
    ['GET /catalog?url=', await allowing.catalog(`${stalled}/x.git`)],
  ] as const) {
    const body = (await res.json()) as any
    t.ok(res.status >= 400, `${route} to a stalling server fails (${res.status} ${body.error?.code}: ${body.error?.message})`)
  }
})
