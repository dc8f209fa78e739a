// With REDIS_URL, replicas share the rate-limit counters.
import t from 'tap'
import { Redis } from 'ioredis'
import { buildApp } from '@ies/server'
import { startTestApp } from '../../harness/app.ts'
import { redisAvailable, startRedis } from '../../../scripts/services/redis.ts'

if (!redisAvailable() && !process.env.CI) {
  t.skip('redis-server is not installed (apt-get install redis-server); CI installs it', () => {})
} else {
  t.test('two replicas on one Redis share the per-IP count', async (t) => {
    const redisServer = await startRedis()
    t.teardown(() => redisServer.stop())
    const clients = [new Redis(redisServer.url), new Redis(redisServer.url)]
    t.teardown(() => Promise.all(clients.map((c) => c.quit())))

    const first = await startTestApp(t, { RATE_LIMIT_IP_MAX: '4' })
    await first.app.close()
    const replicas = await Promise.all(
      clients.map(async (redis) => {
        const app = await buildApp({ config: first.config, logger: false, redis })
        t.teardown(() => app.close())
        return app
      }),
    )
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const replica = replicas[i % 2]
      const res = await replica.inject({ method: 'GET', url: '/api/users/me', headers: first.auth('dev') })
      statuses.push(res.statusCode)
    }
    t.same(statuses, [200, 200, 200, 200, 429, 429], 'the fifth request is limited, whichever replica takes it')
  })
}
