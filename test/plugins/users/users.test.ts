// /api/users: the caller's record is created on first sight and follows the token's claims;
// preferences are validated; the list is admin-only and paginated.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'

t.test('me and preferences', async (t) => {
  const { app, auth, issuer, db } = await startTestApp(t)
  const me = await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  t.equal(me.statusCode, 200)
  const user = me.json().data
  t.match(user, {
    username: 'dev',
    email: 'dev@example.com',
    identityProviderId: '7d1c3f0e-2a4b-4c5d-8e9f-000000000001',
    preferences: { theme: 'system', defaultProvider: 'aws' },
  })
  t.equal(await db.client.db().collection('users').countDocuments({ identityProviderId: user.identityProviderId }), 1, 'stored once')

  const put = await app.inject({ method: 'PUT', url: '/api/users/me', headers: auth('dev'), payload: { preferences: { theme: 'dark' } } })
  t.equal(put.statusCode, 200)
  t.same(put.json().data.preferences, { theme: 'dark', defaultProvider: 'aws' }, 'a partial update keeps the other preference')
  t.ok(Date.parse(put.json().data.updatedAt) >= Date.parse(user.updatedAt))

  const prefs = await app.inject({
    method: 'PUT',
    url: '/api/users/me/preferences',
    headers: auth('dev'),
    payload: { defaultProvider: 'gcp' },
  })
  t.equal(prefs.statusCode, 200)
  t.same(prefs.json().data, { theme: 'dark', defaultProvider: 'gcp' })
  const read = await app.inject({ method: 'GET', url: '/api/users/me/preferences', headers: auth('dev') })
  t.same(read.json().data, { theme: 'dark', defaultProvider: 'gcp' })

  for (const [payload, field] of [
    [{ theme: 'neon' }, 'theme'],
    [{ defaultProvider: 'mars' }, 'defaultProvider'],
    [{}, '(body)'],
    [{ colour: 'red' }, '(body)'],
  ] as const) {
    const bad = await app.inject({ method: 'PUT', url: '/api/users/me/preferences', headers: auth('dev'), payload })
    t.equal(bad.statusCode, 400, JSON.stringify(payload))
    t.equal(bad.json().error.code, 'VALIDATION_ERROR')
    t.ok(
      bad.json().error.details.some((d: { field: string }) => d.field === field),
      `details name ${field}: ${bad.body}`,
    )
    if (field === 'theme') t.equal(bad.json().error.details[0].message, 'must be one of: light, dark, system')
  }
  const extra = await app.inject({
    method: 'PUT',
    url: '/api/users/me/preferences',
    headers: auth('dev'),
    payload: { theme: 'dark', colour: 'red' },
  })
  t.equal(extra.statusCode, 200, 'unknown fields are ignored')
  t.same(extra.json().data, { theme: 'dark', defaultProvider: 'gcp' })
  t.same(
    (await app.inject({ method: 'GET', url: '/api/users/me/preferences', headers: auth('dev') })).json().data,
    { theme: 'dark', defaultProvider: 'gcp' },
    'bad input lost nothing',
  )

  // The record follows the identity provider's claims.
  const renamed = issuer.sign({ sub: user.identityProviderId, preferred_username: 'dev2', email: 'dev2@example.com' })
  const after = await app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${renamed}` } })
  t.match(after.json().data, { id: user.id, username: 'dev2', email: 'dev2@example.com' })
})

t.test('admin list is paginated', async (t) => {
  const { app, auth, issuer } = await startTestApp(t)
  for (let i = 0; i < 4; i++) {
    const token = issuer.sign({ sub: `c0000000-0000-4000-8000-00000000000${i}`, preferred_username: `u${i}` })
    await app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } })
  }
  const p1 = await app.inject({ method: 'GET', url: '/api/users?page=1&limit=2', headers: auth('admin') })
  t.equal(p1.statusCode, 200)
  t.equal(p1.json().data.length, 2)
  t.same(p1.json().pagination, { page: 1, limit: 2, total: 5, totalPages: 3 })
  const p3 = await app.inject({ method: 'GET', url: '/api/users?page=3&limit=2', headers: auth('admin') })
  t.equal(p3.json().data.length, 1)
  const ids = new Set([...p1.json().data, ...p3.json().data].map((u: { id: string }) => u.id))
  t.equal(ids.size, 3, 'pages do not overlap')
  for (const query of ['limit=101', 'limit=0', 'page=0', 'page=abc']) {
    const bad = await app.inject({ method: 'GET', url: `/api/users?${query}`, headers: auth('admin') })
    t.equal(bad.statusCode, 400, query)
    t.equal(bad.json().error.code, 'VALIDATION_ERROR', query)
  }
})
