// Security headers (issue 15, section 5, server side): the web UI and every API answer (successes,
// errors, the unauthenticated 401) carry a Content-Security-Policy without inline script and with
// frame-ancestors 'none', nosniff, a strict referrer policy, X-Frame-Options DENY, and no
// X-Powered-By. test/e2e/web-ui.test.ts loads the built UI in Chromium under this policy.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'

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
