// Rate limits (per IP before auth, per user after it), their headers and 429, and /health:
// outside /api, without authentication, never limited, 503 while the database is down.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'

t.test('per-IP limit: headers, 429 in the envelope, health exempt', async (t) => {
  const { app, auth } = await startTestApp(t, { RATE_LIMIT_IP_MAX: '3', RATE_LIMIT_IP_WINDOW_MS: '60000' })
  const before = Math.floor(Date.now() / 1000)
  const first = await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  t.equal(first.statusCode, 200)
  t.equal(first.headers['x-ratelimit-limit'], '3')
  t.equal(first.headers['x-ratelimit-remaining'], '2')
  const after = Math.ceil(Date.now() / 1000)
  const reset = Number(first.headers['x-ratelimit-reset'])
  // The window starts while the first request is handled: its end is 60 s after a moment in [before, after].
  t.ok(
    reset >= before + 60 && reset <= after + 61,
    `reset is a Unix timestamp in seconds (${reset}; request between ${before} and ${after})`,
  )

  await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  // Unauthenticated requests count against the IP too.
  const third = await app.inject({ method: 'GET', url: '/api/users/me' })
  t.equal(third.statusCode, 401)
  t.equal(third.headers['x-ratelimit-remaining'], '0')

  const limited = await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(limited.json().meta.requestId)
  t.ok(Number(limited.headers['retry-after']) > 0)
  t.equal(limited.headers['x-ratelimit-remaining'], '0')

  for (let i = 0; i < 10; i++) {
    const health = await app.inject({ method: 'GET', url: '/health' })
    t.equal(health.statusCode, 200, 'health is never limited')
    t.notOk(health.headers['x-ratelimit-limit'], 'health carries no rate-limit headers')
  }
})

t.test('per-IP limit: an IPv6 client counts by its /64 network, a mapped IPv4 as the IPv4', async (t) => {
  const { app } = await startTestApp(t, { RATE_LIMIT_IP_MAX: '2', RATE_LIMIT_IP_WINDOW_MS: '60000' })
  const remaining = async (ip: string) =>
    (await app.inject({ method: 'GET', url: '/api/users/me', remoteAddress: ip })).headers['x-ratelimit-remaining']
  t.equal(await remaining('2001:db8:0:1::1'), '1')
  t.equal(await remaining('2001:db8:0:1::ffff'), '0', 'another address of the same /64 shares the count')
  t.equal(await remaining('2001:db8:0:2::1'), '1', 'the next /64 has its own')
  t.equal(await remaining('192.0.2.7'), '1')
  t.equal(await remaining('::ffff:192.0.2.7'), '0', 'IPv4-mapped IPv6 is the IPv4 client')
})

t.test('per-user limit counts a user across addresses', async (t) => {
  const { app, auth } = await startTestApp(t, { RATE_LIMIT_USER_MAX: '2', RATE_LIMIT_USER_WINDOW_MS: '3600000' })
  const get = (user: 'dev' | 'other', ip: string) =>
    app.inject({ method: 'GET', url: '/api/users/me', headers: auth(user), remoteAddress: ip })
  t.equal((await get('dev', '127.0.0.2')).statusCode, 200)
  const second = await get('dev', '127.0.0.3')
  t.equal(second.statusCode, 200)
  t.equal(second.headers['x-ratelimit-limit'], '2', 'the tighter limit is reported')
  t.equal(second.headers['x-ratelimit-remaining'], '0')
  const third = await get('dev', '127.0.0.4')
  t.equal(third.statusCode, 429)
  t.equal(third.json().error.code, 'RATE_LIMITED')
  t.equal((await get('other', '127.0.0.4')).statusCode, 200, 'another user is not affected')
})

t.test('health needs no token, reports the database, 503 while it is down', async (t) => {
  const { app, db } = await startTestApp(t)
  const up = await app.inject({ method: 'GET', url: '/health' })
  t.equal(up.statusCode, 200)
  t.same(up.json().data, { status: 'ok', checks: { database: 'up' } })
  if (!db.server) {
    t.comment('SKIP: a database outage needs the FerretDB started by the harness (MONGODB_URI is set)')
    return
  }
  await db.server.stop()
  const down = await app.inject({ method: 'GET', url: '/health' })
  t.equal(down.statusCode, 503)
  t.equal(down.json().error.code, 'SERVICE_UNAVAILABLE')
  t.same(down.json().error.details, { database: 'down' })
  await db.server.restart()
  let back = 0
  for (let i = 0; i < 40 && back !== 200; i++) {
    back = (await app.inject({ method: 'GET', url: '/health' })).statusCode
    if (back !== 200) await new Promise((r) => setTimeout(r, 250))
  }
  t.equal(back, 200, 'health recovers when the database returns')
})
