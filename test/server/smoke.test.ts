import t from 'tap'
import { startTestApp } from '../harness/app.ts'

t.test('boots', async (t) => {
  const { app, auth } = await startTestApp(t)
  const me = await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  t.equal(me.statusCode, 200, me.body)
  const list = await app.inject({ method: 'GET', url: '/api/users', headers: auth('dev') })
  t.equal(list.statusCode, 403, list.body)
  const list2 = await app.inject({ method: 'GET', url: '/api/users', headers: auth('admin') })
  t.equal(list2.statusCode, 200, list2.body)
})
