import t from 'tap'
import { buildApp } from '@ies/server'
import { loadConfig } from '@ies/server/config'
import { startTestDatabase } from '../harness/database.ts'

t.test('boots', async (t) => {
  const db = await startTestDatabase(t)
  const config = loadConfig({ MONGODB_URI: db.uri, AUTH_URL: 'http://127.0.0.1:9' })
  const app = await buildApp({ config, logger: false, mongoClient: db.client })
  t.teardown(() => app.close())
  const health = await app.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 200, health.body)
  const none = await app.inject({ method: 'GET', url: '/api/users/me' })
  t.equal(none.statusCode, 401, none.body)
  const nf = await app.inject({ method: 'GET', url: '/api/credentials' })
  t.equal(nf.statusCode, 404, nf.body)
  console.log(app.printRoutes())
})
