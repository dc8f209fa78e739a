// Security headers: the web UI and every API answer (successes,
// errors, the unauthenticated 401) carry a Content-Security-Policy without inline script and with
// frame-ancestors 'none', nosniff, a strict referrer policy, X-Frame-Options DENY, and no
// X-Powered-By. test/e2e/web-ui.test.ts loads the built UI in Chromium under this policy.
import t from 'tap'
import Fastify from 'fastify'
import helmet from '@fastify/helmet'
import { API_DIRECTIVES, helmetHeaderSet, securityHeaders } from '@ies/server/core/security-headers'
import { startTestApp } from '../../harness/app.ts'

const directives = (csp: string | null) =>
  new Map(
    (csp ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  )

t.test('security headers on the web UI and the API', async (t) => {
  const { url, auth } = await startTestApp(t)
  const check = (name: string, res: Response) => {
    const csp = res.headers.get('content-security-policy')
    t.ok(csp, `${name}: a Content-Security-Policy`)
    const d = directives(csp)
    t.same(d.get('frame-ancestors'), ["'none'"], `${name}: frame-ancestors 'none'`)
    t.notOk(csp?.includes('unsafe-inline') || csp?.includes('unsafe-eval'), `${name}: no unsafe-inline or unsafe-eval`)
    const scripts = d.get('script-src') ?? d.get('default-src')
    t.ok(
      scripts && !scripts.some((s) => s.startsWith("'nonce-") || s === '*' || s.startsWith('http')),
      `${name}: scripts only from this server`,
    )
    t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${name}: nosniff`)
    t.equal(res.headers.get('referrer-policy'), 'no-referrer', `${name}: no-referrer`)
    t.equal(res.headers.get('x-frame-options'), 'DENY', `${name}: X-Frame-Options DENY`)
    t.equal(res.headers.get('x-powered-by'), null, `${name}: no X-Powered-By`)
    return d
  }

  const index = await fetch(`${url}/`)
  const ui = check('web UI /', index)
  t.same(ui.get('script-src'), ["'self'"], "web UI: script-src 'self' only")
  t.ok(ui.get('connect-src')?.includes("'self'"), 'web UI: fetches to this server allowed')
  if (index.status === 200) {
    const html = await index.text()
    t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i, 'the index has no inline script (the environment is /env.js)')
  }
  check('web UI /env.js', await fetch(`${url}/env.js`))
  check('web UI deep link', await fetch(`${url}/environments/new`))

  const api = check('API 200', await fetch(`${url}/api/environments`, { headers: auth('dev') }))
  t.same(api.get('default-src'), ["'none'"], "API: default-src 'none' (JSON only)")
  check('API 401', await fetch(`${url}/api/environments`))
  check('API 404', await fetch(`${url}/api/environments/00000000-0000-4000-8000-000000000000`, { headers: auth('dev') }))
  check(
    'API 400',
    await fetch(`${url}/api/environments`, { method: 'POST', headers: { ...auth('dev'), 'content-type': 'application/json' }, body: '{' }),
  )
})

// The API applies helmet's headers as a set computed once at start (helmetHeaderSet): every header
// @fastify/helmet itself sets per request with the API's options is on every kind of /api answer, with
// the same value, and nothing it removes is there.
t.test("the API's headers are exactly the ones @fastify/helmet sets per request", async (t) => {
  const reference = Fastify({ logger: false })
  await reference.register(helmet, securityHeaders(API_DIRECTIVES))
  reference.get('/', async () => ({ ok: true }))
  const res = await reference.inject('/')
  await reference.close()
  const fastifyOwn = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive'])
  const expected = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !fastifyOwn.has(name)))
  t.ok(Object.keys(expected).length >= 10, `helmet sets its headers (${Object.keys(expected).join(', ')})`)
  t.same(await helmetHeaderSet(securityHeaders(API_DIRECTIVES)), expected, 'the computed set')

  const { url, auth } = await startTestApp(t)
  const catalog = await fetch(`${url}/api/catalog`, { headers: auth('dev') })
  const answers: [string, Response][] = [
    ['200', catalog],
    ['304', await fetch(`${url}/api/catalog`, { headers: { ...auth('dev'), 'if-none-match': catalog.headers.get('etag')! } })],
    ['401', await fetch(`${url}/api/catalog`)],
    ['404', await fetch(`${url}/api/environments/00000000-0000-4000-8000-000000000000`, { headers: auth('dev') })],
  ]
  for (const [status, answer] of answers) {
    t.equal(String(answer.status), status)
    for (const [name, value] of Object.entries(expected)) t.equal(answer.headers.get(name), String(value), `${status}: ${name}`)
    t.equal(answer.headers.get('x-powered-by'), null, `${status}: no X-Powered-By`)
  }
})
