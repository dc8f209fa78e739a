// The assistant reads the same catalog as GET /api/catalog, and says so clearly when there is none.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { startModelServer } from '../../harness/model-server.ts'
import { logLines } from '../../harness/log-lines.ts'
import { serveCatalogDocument } from '../../harness/catalog-document-server.ts'
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

/** The log lines whose message starts with `assistant: catalog`. */
const catalogLines = (lines: string[]) => lines.map((l) => JSON.parse(l)).filter((l) => String(l.msg).startsWith('assistant: catalog'))

t.test('no catalog: 503 SERVICE_UNAVAILABLE, logged with the reason', async (t) => {
  const { lines, logStream } = logLines()
  const ctx = await startTestApp(t, { TEMPLATES_DIR: '/nonexistent/templates', LOG_LEVEL: 'warn' }, { logStream })
  const res = await chat(ctx, ask('check my draft'))
  t.equal(res.status, 503)
  t.equal(res.body.error.code, 'SERVICE_UNAVAILABLE')
  t.match(res.body.error.message, /catalog is unavailable/)
  const logged = catalogLines(lines)
  t.equal(logged.length, 1)
  t.match(logged[0], { level: 40, msg: 'assistant: catalog unavailable', err: { message: /templates/ } })
})

t.test('a catalog document of another schema version: 503 SERVICE_UNAVAILABLE, logged with its schemaVersion', async (t) => {
  const doc = { schemaVersion: 2, commit: 'c'.repeat(40), global: { fields: {} }, services: {}, errors: [] }
  const processorUrl = await serveCatalogDocument(t, doc)
  const { lines, logStream } = logLines()
  const ctx = await startTestApp(t, { PROCESSOR_URL: processorUrl, PROCESSOR_SERVICE_TOKEN: 'svc-token', LOG_LEVEL: 'warn' }, { logStream })
  const res = await chat(ctx, ask('check my draft'))
  t.equal(res.status, 503)
  t.equal(res.body.error.code, 'SERVICE_UNAVAILABLE')
  t.match(catalogLines(lines), [{ level: 40, msg: 'assistant: catalog of another schema version', schemaVersion: 2 }])
})
