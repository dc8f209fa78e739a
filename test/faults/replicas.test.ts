// Two server replicas on one database and one Redis: the plain API
// agrees whichever replica answers, the rate-limit counts are shared, each job runs exactly once
// (whichever replica queued it), and an archive made by one replica downloads from the other.
import type { AddressInfo } from 'node:net'
import { createHash, randomUUID } from 'node:crypto'
import t from 'tap'
import { Redis } from 'ioredis'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '@ies/server'
import type { Config } from '@ies/server/config'
import { startTestApp } from '../harness/app.ts'
import { environmentBody, waitForJob } from '../harness/jobs.ts'
import { redisAvailable, startRedis } from '../../scripts/services/redis.ts'

type Tap = { teardown(fn: () => unknown): void }

interface Replica {
  app: FastifyInstance
  url: string
  /** How many jobs this replica's worker started. */
  started: string[]
}

if (!redisAvailable() && !process.env.CI) {
  t.skip('redis-server is not installed (apt-get install redis-server); CI installs it', () => {})
} else {
  t.test('two replicas on one database and one Redis', async (t) => {
    const redisServer = await startRedis()
    t.teardown(() => redisServer.stop())
    // The harness makes the database and the identity provider; its own server is not one of the replicas.
    const first = await startTestApp(t, { REDIS_URL: redisServer.url })
    await first.app.close()

    const startReplica = async (t: Tap, config: Config): Promise<Replica> => {
      const redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 })
      const app = await buildApp({ config, logger: false, redis })
      // Closed at the end of the (sub)test that started it: the server and its job queue, then its Redis client.
      t.teardown(async () => {
        await app.close()
        await redis.quit()
      })
      const started: string[] = []
      const store = app.jobs.store
      const start = store.start.bind(store)
      store.start = async (id: string, lockLifetimeMs: number) => {
        const record = await start(id, lockLifetimeMs)
        if (record) started.push(id)
        return record
      }
      await app.listen({ host: '127.0.0.1', port: 0 })
      return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, started }
    }
    const user = (name: string) => {
      const token = first.issuer.sign({
        sub: randomUUID(),
        preferred_username: name,
        email: `${name}@example.com`,
        realm_access: { roles: ['user'] },
      })
      return { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    }
    const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })

    await t.test('rate-limit counts are shared', async (t) => {
      const config = { ...first.config, rateLimit: { ...first.config.rateLimit, userMax: 10 } }
      const pair = [await startReplica(t, config), await startReplica(t, config)]
      const headers = user('limited')
      const statuses: number[] = []
      const remaining: number[] = []
      for (let i = 0; i < 14; i++) {
        const res = await fetch(`${pair[i % 2].url}/api/users/me`, { headers })
        await res.arrayBuffer()
        statuses.push(res.status)
        remaining.push(Number(res.headers.get('x-ratelimit-remaining')))
      }
      t.same(
        statuses,
        [...Array(10).fill(200), ...Array(4).fill(429)],
        'the eleventh request of the user is limited, whichever replica takes it',
      )
      t.same(remaining.slice(0, 10), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 'X-RateLimit-Remaining counts down across both replicas')
      // The first request of a user on both replicas at once: one user record, no error.
      const fresh = user('twin')
      const both = await Promise.all(pair.map((r) => fetch(`${r.url}/api/users/me`, { headers: fresh }).then(json)))
      t.same(
        both.map((r) => r.status),
        [200, 200],
      )
      t.equal(both[0].body.data.id, both[1].body.data.id, 'both replicas see the same user record')
    })

    const [a, b] = [await startReplica(t, first.config), await startReplica(t, first.config)]
    const dev = user('dev')

    await t.test('the plain API agrees whichever replica answers', async (t) => {
      const created = await json(
        await fetch(`${a.url}/api/environments`, {
          method: 'POST',
          headers: dev,
          body: JSON.stringify(environmentBody({ name: 'replicated' })),
        }),
      )
      t.equal(created.status, 201)
      const id = created.body.data.id
      const onB = await json(await fetch(`${b.url}/api/environments/${id}`, { headers: dev }))
      t.equal(onB.status, 200, 'created on A, read on B')
      t.equal(onB.body.data.name, 'replicated')
      const updated = await json(
        await fetch(`${b.url}/api/environments/${id}`, { method: 'PUT', headers: dev, body: JSON.stringify({ domain: 'b.example.com' }) }),
      )
      t.equal(updated.status, 200, 'updated on B')
      const onA = await json(await fetch(`${a.url}/api/environments/${id}`, { headers: dev }))
      t.equal(onA.body.data.domain, 'b.example.com', 'A reads the update made on B')
      const again = await json(
        await fetch(`${b.url}/api/environments`, {
          method: 'POST',
          headers: dev,
          body: JSON.stringify(environmentBody({ name: 'replicated' })),
        }),
      )
      t.equal(again.status, 409, 'a duplicate name is refused by the other replica too')
      const lists = await Promise.all([a, b].map((r) => fetch(`${r.url}/api/environments`, { headers: dev }).then(json)))
      t.same(lists[0].body.data, lists[1].body.data, 'both replicas list the same environments')
      const deleted = await fetch(`${a.url}/api/environments/${id}`, { method: 'DELETE', headers: { authorization: dev.authorization } })
      t.equal(deleted.status, 204, 'deleted on A')
      t.equal((await fetch(`${b.url}/api/environments/${id}`, { headers: dev })).status, 404, 'gone on B')
    })

    await t.test('each job runs once; an archive made by one replica downloads from the other', async (t) => {
      const created = await json(
        await fetch(`${a.url}/api/environments`, {
          method: 'POST',
          headers: dev,
          body: JSON.stringify(environmentBody({ name: 'jobs-shop' })),
        }),
      )
      t.equal(created.status, 201)
      const envId = created.body.data.id
      const JOBS = 10
      const queued = await Promise.all(
        Array.from({ length: JOBS }, async (_, i) => {
          const via = [a, b][i % 2]
          const res = await json(
            await fetch(`${via.url}/api/environments/${envId}/generate`, {
              method: 'POST',
              headers: dev,
              body: JSON.stringify({ format: 'terraform', options: { includeBackend: i % 3 === 0 } }),
            }),
          )
          t.equal(res.status, 202, `job ${i} queued on replica ${i % 2 ? 'B' : 'A'}`)
          return { id: res.body.data.id as string, via: i % 2 }
        }),
      )
      const done = await Promise.all(
        queued.map((q) => waitForJob([a, b][1 - q.via].url, { authorization: dev.authorization }, q.id, 180_000, 100)),
      )
      t.same(
        done.map((j) => j.status),
        Array(JOBS).fill('succeeded'),
        'every job succeeded',
      )

      const starts = [...a.started, ...b.started].sort()
      t.same(starts, queued.map((q) => q.id).sort(), 'each job was started exactly once, on one replica')
      t.comment(`jobs run by replica A: ${a.started.length}, by B: ${b.started.length}`)
      const records = await first.db.client
        .db()
        .collection('jobHistory')
        .find({ _id: { $in: queued.map((q) => q.id) } as never })
        .toArray()
      t.same(
        records.map((r) => r.attempts),
        Array(JOBS).fill(1),
        'one attempt per job record',
      )

      for (const q of queued.slice(0, 4)) {
        const job = done.find((j) => j.id === q.id)!
        for (const r of [a, b]) {
          const res = await fetch(`${r.url}/api/jobs/${q.id}/download`, { headers: { authorization: dev.authorization } })
          t.equal(res.status, 200)
          const zip = Buffer.from(await res.arrayBuffer())
          t.equal(
            createHash('sha256').update(zip).digest('hex'),
            job.result.archive.sha256,
            'the archive downloads whole from either replica',
          )
        }
      }
      // Archives made by the replica that did not queue the job: the download is served by the other one.
      const madeByA = a.started[0]
      const madeByB = b.started[0]
      if (madeByA)
        t.equal(
          (await fetch(`${b.url}/api/jobs/${madeByA}/download`, { headers: { authorization: dev.authorization } })).status,
          200,
          'made by A, downloaded from B',
        )
      if (madeByB)
        t.equal(
          (await fetch(`${a.url}/api/jobs/${madeByB}/download`, { headers: { authorization: dev.authorization } })).status,
          200,
          'made by B, downloaded from A',
        )
    })
  })
}
