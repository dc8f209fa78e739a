// The Fastify core: envelope, request ids, error codes, unmounted paths and body errors.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { startTestApp } from '../../harness/app.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

t.test('envelope and request id', async (t) => {
  const { app, auth } = await startTestApp(t)

  const res = await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body.meta.requestId, UUID)
  t.ok(!Number.isNaN(Date.parse(body.meta.timestamp)), 'timestamp is ISO 8601')
  t.equal(res.headers['x-request-id'], body.meta.requestId, 'request id echoed in the header')

  const mine = randomUUID()
  const echoed = await app.inject({ method: 'GET', url: '/api/users/me', headers: { ...auth('dev'), 'x-request-id': mine } })
  t.equal(echoed.json().meta.requestId, mine, 'a client UUID is used')
  t.equal(echoed.headers['x-request-id'], mine)

  const replaced = await app.inject({
    method: 'GET',
    url: '/api/users/me',
    headers: { ...auth('dev'), 'x-request-id': 'not a uuid <script>' },
  })
  t.not(replaced.json().meta.requestId, 'not a uuid <script>')
  t.match(replaced.json().meta.requestId, UUID, 'a non-UUID request id is replaced')

  const error = await app.inject({ method: 'GET', url: '/api/nothing-here', headers: { 'x-request-id': mine } })
  t.same(Object.keys(error.json()).sort(), ['error', 'meta'])
  t.equal(error.json().meta.requestId, mine, 'errors carry the request id too')
})

t.test('unmounted paths are 404 NOT_FOUND in the envelope', async (t) => {
  const { app, auth } = await startTestApp(t)
  for (const url of [
    '/api/credentials',
    '/api/environments/' + randomUUID() + '/export',
    '/health/ready',
    '/api',
    '/api/nope',
    '/realms/nope',
  ]) {
    const res = await app.inject({ method: 'GET', url, headers: auth('dev') })
    t.equal(res.statusCode, 404, url)
    t.equal(res.json().error.code, 'NOT_FOUND', url)
  }
})

t.test('body errors: malformed JSON, wrong content type, validation details, oversize', async (t) => {
  const { app, auth } = await startTestApp(t, { BODY_LIMIT_BYTES: '2048' })
  const headers = { ...auth('dev'), 'content-type': 'application/json' }

  const malformed = await app.inject({ method: 'PUT', url: '/api/users/me', headers, payload: '{"preferences": ' })
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().error.code, 'VALIDATION_ERROR')
  t.ok(Array.isArray(malformed.json().error.details))

  const wrongType = await app.inject({
    method: 'PUT',
    url: '/api/users/me',
    headers: { ...auth('dev'), 'content-type': 'text/plain' },
    payload: 'theme=dark',
  })
  t.equal(wrongType.statusCode, 400)
  t.equal(wrongType.json().error.code, 'VALIDATION_ERROR')

  const invalid = await app.inject({
    method: 'PUT',
    url: '/api/users/me',
    headers,
    payload: { preferences: { theme: 'pink', defaultProvider: 'mars' } },
  })
  t.equal(invalid.statusCode, 400)
  const fields = invalid
    .json()
    .error.details.map((d: { field: string }) => d.field)
    .sort()
  t.same(fields, ['preferences.defaultProvider', 'preferences.theme'], 'details name every dotted field')

  const missing = await app.inject({ method: 'PUT', url: '/api/users/me', headers, payload: {} })
  t.equal(missing.statusCode, 400)
  t.same(
    missing.json().error.details.map((d: { field: string }) => d.field),
    ['preferences'],
  )

  const big = await app.inject({
    method: 'PUT',
    url: '/api/users/me',
    headers,
    payload: JSON.stringify({ preferences: { theme: 'x'.repeat(5000) } }),
  })
  t.equal(big.statusCode, 413)
  t.equal(big.json().error.code, 'PAYLOAD_TOO_LARGE')

  const after = await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  t.same(after.json().data.preferences, { theme: 'system', defaultProvider: 'aws' }, 'nothing stored by bad requests')
})

t.test('an unexpected failure is a 500 without internals', async (t) => {
  const { app, auth } = await startTestApp(t)
  // Break the users collection under the route: the handler throws something that is not an AppError.
  const original = app.users.get.bind(app.users)
  app.users.get = async () => {
    throw new TypeError('secret internal detail at /srv/app.ts:42')
  }
  t.teardown(() => {
    app.users.get = original
  })
  const res = await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  t.equal(res.statusCode, 500)
  t.same(res.json().error, { code: 'INTERNAL_ERROR', message: 'Internal server error' })
  t.notMatch(res.body, /secret internal detail|stack|\.ts:/)
})

t.test("requests Node's HTTP parser refuses are answered in the envelope", async (t) => {
  const { url } = await startTestApp(t)
  const { port } = new URL(url)
  /** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
  const raw = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(text))
      let answer = ''
      socket.on('data', (chunk) => (answer += chunk))
      socket.on('close', () => resolve(answer))
      socket.on('error', reject)
    })
  for (const [name, request, status] of [
    ['headers over the size limit', `GET /api/environments/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ['a malformed header line', 'GET /health HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n', 400],
    ['a Content-Length that is no number', 'POST /api/environments HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
  ] as const) {
    const answer = await raw(request)
    t.match(answer, new RegExp(`^HTTP/1.1 ${status} `), `${name}: ${status}`)
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    t.match(
      body,
      { error: { code: 'BAD_REQUEST', message: String }, meta: { requestId: UUID, timestamp: String } },
      `${name}: in the envelope`,
    )
  }
})
