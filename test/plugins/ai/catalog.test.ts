// The assistant reads the same catalog as GET /api/catalog, and says so clearly when there is none.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { startModelServer } from '../../harness/model-server.ts'
import { ask, chat } from './helpers.ts'

t.test('the model is grounded in the catalog GET /api/catalog serves', async (t) => {
  const model = await startModelServer(t)
  const ctx = await startTestApp(t, { AI_BASE_URL: model.baseUrl, AI_MODEL: 'm' })
  const res = await fetch(`${ctx.url}/api/catalog`, { headers: ctx.auth('dev') })
  const etag = (res.headers.get('etag') ?? '').replace(/"/g, '')
  t.ok(etag.length > 0)
  const answer = await chat(ctx, ask('hi'))
  t.equal(answer.status, 200)
  t.match(model.requests[0].body.messages?.[0].content, `commit ${etag})`)
})

t.test('no catalog: 503 SERVICE_UNAVAILABLE', async (t) => {
  const ctx = await startTestApp(t, { TEMPLATES_DIR: '/nonexistent/templates' })
  const res = await chat(ctx, ask('check my draft'))
  t.equal(res.status, 503)
  t.equal(res.body.error.code, 'SERVICE_UNAVAILABLE')
  t.match(res.body.error.message, /catalog is unavailable/)
})
