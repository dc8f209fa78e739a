// The OpenAPI document is generated from the routes' TypeBox schemas.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'

t.test('GET /api/openapi.json', async (t) => {
  const { app, auth } = await startTestApp(t)
  t.equal((await app.inject({ method: 'GET', url: '/api/openapi.json' })).statusCode, 401, 'needs a token like every /api route')
  const res = await app.inject({ method: 'GET', url: '/api/openapi.json', headers: auth('dev') })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.match(doc.openapi, /^3\./)
  t.same(doc.security, [{ bearerAuth: [] }])
  t.same(doc.paths['/health'].get.security, [], 'health needs no token')
  for (const path of ['/api/users/me', '/api/users/me/preferences', '/api/users/']) {
    t.ok(doc.paths[path], `documents ${path}`)
  }
  t.ok(doc.paths['/api/users/me'].put.responses['400'], 'error responses are documented')
})
