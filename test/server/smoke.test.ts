import t from 'tap'
import { SHUTDOWN_GRACE_MS } from '@ies/server/app'
import { startTestApp } from '../harness/app.ts'
import { environmentBody } from '../harness/jobs.ts'

t.test('boots', async (t) => {
  const { app, auth } = await startTestApp(t)
  const me = await app.inject({ method: 'GET', url: '/api/users/me', headers: auth('dev') })
  t.equal(me.statusCode, 200, me.body)
  const list = await app.inject({ method: 'GET', url: '/api/users', headers: auth('dev') })
  t.equal(list.statusCode, 403, list.body)
  const list2 = await app.inject({ method: 'GET', url: '/api/users', headers: auth('admin') })
  t.equal(list2.statusCode, 200, list2.body)
})

t.test('closing does not wait for a request in flight longer than the shutdown grace', async (t) => {
  // Jobs are not processed here, so a long poll on a queued job would wait its full minute.
  const { app, url, auth } = await startTestApp(t, { JOBS_PROCESS: 'false', JOBS_WAIT_TIMEOUT_MS: '60000' })
  const headers = { ...auth('dev'), 'content-type': 'application/json' }
  const created = await fetch(`${url}/api/environments`, {
    method: 'POST',
    headers,
    body: JSON.stringify(environmentBody({ name: 'closing' })),
  })
  const envId = ((await created.json()) as { data: { id: string } }).data.id
  const queued = await fetch(`${url}/api/environments/${envId}/generate`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ format: 'terraform' }),
  })
  t.equal(queued.status, 202)
  const jobId = ((await queued.json()) as { data: { id: string } }).data.id
  // The long poll is in flight once the server has read its request.
  const reached = new Promise<void>((resolve) =>
    app.server.on('request', (req: { url?: string }) => {
      if (req.url?.includes('wait=true')) resolve()
    }),
  )
  const poll = fetch(`${url}/api/jobs/${jobId}?wait=true`, { headers: auth('dev') }).then(
    (res) => res.status,
    () => 'connection closed',
  )
  await reached
  const started = Date.now()
  await app.close()
  const took = Date.now() - started
  t.ok(took < SHUTDOWN_GRACE_MS + 5_000, `closed in ${took} ms (grace ${SHUTDOWN_GRACE_MS} ms; the poll would wait 60 s)`)
  t.ok(took >= SHUTDOWN_GRACE_MS - 500, 'the request in flight had its grace period')
  t.equal(await poll, 'connection closed')
})
