// The services a benchmark or the load test runs against, started in a process of their own so that
// the load generator (autocannon, in the parent) does not share an event loop with them:
//   - IES itself, as the tests run it (buildApp with its real plugins, a FerretDB of its own, a JWKS
//     token issuer; rate limits on, with limits too high to trip; request logging off),
//   - a bare Fastify with no plugins whose GET /environments/:id does the same database read
//     (findOne by id and owner, on its own MongoDB client to the same FerretDB),
//   - a bare Fastify hello world.
// Prints one JSON line with their addresses, a token, and a stored environment; stops everything when
// its stdin closes (the parent exits) or on SIGTERM/SIGINT.
//
//   npx tsx scripts/bench/servers.ts [--env KEY=VALUE ...]   (extra IES configuration)
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { MongoClient } from 'mongodb'
import { startTestApp } from '../../test/harness/app.ts'
import { environmentBody } from '../../test/harness/jobs.ts'

export interface BenchServers {
  ies: string
  bare: string
  hello: string
  /** `Bearer …` for the user `dev`. */
  authorization: string
  environmentId: string
  catalogEtag: string
}

const { values } = parseArgs({ options: { env: { type: 'string', multiple: true, default: [] } } })
const env = Object.fromEntries(values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))

const teardowns: (() => unknown)[] = []
let stopping = false
async function stop(code = 0) {
  if (stopping) return
  stopping = true
  for (const fn of teardowns.reverse()) await Promise.resolve(fn()).catch(() => {})
  process.exit(code)
}
process.once('SIGTERM', () => void stop())
process.once('SIGINT', () => void stop())
process.stdin.on('end', () => void stop())
process.stdin.on('close', () => void stop())
process.stdin.resume()

try {
  const ies = await startTestApp({ teardown: (fn) => teardowns.push(fn) }, env)
  const headers = { ...ies.auth('dev'), 'content-type': 'application/json' }
  const created = await fetch(`${ies.url}/api/environments`, {
    method: 'POST',
    headers,
    body: JSON.stringify(environmentBody({ name: 'bench-shop' })),
  })
  if (created.status !== 201) throw new Error(`creating the environment: ${created.status} ${await created.text()}`)
  const environmentId = ((await created.json()) as { data: { id: string } }).data.id
  const catalog = await fetch(`${ies.url}/api/catalog`, { headers })
  if (catalog.status !== 200) throw new Error(`GET /api/catalog: ${catalog.status}`)
  await catalog.arrayBuffer()
  const catalogEtag = catalog.headers.get('etag') ?? ''

  const client = await new MongoClient(ies.db.uri).connect()
  teardowns.push(() => client.close())
  const environments = client.db().collection<{ _id: string; userId: string }>('environments')
  const { userId } = (await environments.findOne({ _id: environmentId }))!
  const bare = Fastify({ logger: false })
  bare.get<{ Params: { id: string } }>('/environments/:id', async (request, reply) => {
    const doc = await environments.findOne({ _id: request.params.id, userId })
    if (!doc) return reply.code(404).send({ error: 'not found' })
    return { data: doc }
  })
  await bare.listen({ host: '127.0.0.1', port: 0 })
  teardowns.push(() => bare.close())

  const hello = Fastify({ logger: false })
  hello.get('/', async () => ({ hello: 'world' }))
  await hello.listen({ host: '127.0.0.1', port: 0 })
  teardowns.push(() => hello.close())

  const addr = (s: { server: { address(): unknown } }) => `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`
  const ready: BenchServers = {
    ies: ies.url,
    bare: addr(bare),
    hello: addr(hello),
    authorization: headers.authorization,
    environmentId,
    catalogEtag,
  }
  process.stdout.write(JSON.stringify(ready) + '\n')
} catch (err) {
  process.stderr.write(`bench servers did not start: ${(err as Error).stack}\n`)
  await stop(1)
}
