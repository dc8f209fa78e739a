// The database stops under 200 concurrent generations: the server process (its own
// process, the real entry point) stays up, answers no 500, and every one of the 200 jobs ends
// (succeeded, or failed with a job error) once the database is back; a generation queued after the
// recovery succeeds. Assertions are on outcomes only: every loop is bounded in count and in time.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { environmentBody, waitForJob } from '../harness/jobs.ts'
import { startReplicaProcess } from '../harness/replica.ts'

const GENERATIONS = 200

if (process.env.MONGODB_URI) {
  t.skip('needs the FerretDB the harness starts (MONGODB_URI points at an external server it cannot stop)', () => {})
} else {
  t.test('the database stops under 200 concurrent generations', async (t) => {
    // The test's own app only provides the database and tokens; the server under test is a child process.
    const harness = await startTestApp(t, { JOBS_PROCESS: 'false' })
    const server = await startReplicaProcess(t, harness, { JOBS_LOCK_LIFETIME_MS: '10000', JOBS_PROCESS_EVERY_MS: '1000' })
    let exit: string | undefined
    server.child.once('exit', (code, signal) => (exit = `exit code ${code}, signal ${signal}: ${server.stderr()}`))
    const url = server.url
    const headers = { ...harness.auth('dev'), 'content-type': 'application/json' }
    const json = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(url + path, { ...init, headers, signal: AbortSignal.timeout(120_000) })
      const text = await res.text()
      return { status: res.status, body: text ? JSON.parse(text) : undefined }
    }

    const envIds: string[] = []
    for (let i = 0; i < 4; i++) {
      const created = await json('/api/environments', { method: 'POST', body: JSON.stringify(environmentBody({ name: `load-${i}` })) })
      t.equal(created.status, 201)
      envIds.push(created.body.data.id)
    }

    // 200 generations at once; half of the clients long-poll their job (?wait=true) meanwhile.
    const accepted: string[] = []
    const answers: number[] = []
    /** Requests that got no answer at all (the connection closed). */
    const dropped: string[] = []
    const queued = await Promise.all(
      Array.from({ length: GENERATIONS }, (_, i) =>
        json(`/api/environments/${envIds[i % envIds.length]}/generate`, {
          method: 'POST',
          body: JSON.stringify({ format: 'terraform', options: { includeBackend: true } }),
        }),
      ),
    )
    for (const q of queued) {
      answers.push(q.status)
      if (q.status === 202) accepted.push(q.body.data.id)
    }
    t.equal(accepted.length, GENERATIONS, 'all 200 generations accepted before the outage')
    const waiters = accepted
      .filter((_, i) => i % 2 === 0)
      .map((id) =>
        json(`/api/jobs/${id}?wait=true`).then(
          (r) => answers.push(r.status),
          (err: Error) => dropped.push(`${err.message} (${String((err.cause as Error | undefined)?.message)})`),
        ),
      )

    // Stop the database while jobs run, keep it down for a few seconds, start it again.
    await harness.db.server!.stop()
    await new Promise((r) => setTimeout(r, 4000))
    const duringOutage = await json('/health').catch((err: Error) => {
      throw new Error(`no answer from /health during the outage: ${err.message}; ${exit ?? 'the server process is running'}`)
    })
    t.equal(duringOutage.status, 503, '/health reports the outage')
    await harness.db.server!.restart()
    await Promise.all(waiters)

    const deadline = Date.now() + 240_000
    while ((await fetch(`${url}/health`).then((r) => r.status)) !== 200) {
      if (Date.now() > deadline) throw new Error('/health not up again within 240 s')
      await new Promise((r) => setTimeout(r, 250))
    }
    const ended = { succeeded: 0, failed: 0 }
    const unfinished: string[] = []
    for (const id of accepted) {
      const job = await waitForJob(url, harness.auth('dev'), id, Math.max(1000, deadline - Date.now()), 200).catch(() => null)
      if (job) ended[job.status as 'succeeded' | 'failed']++
      else unfinished.push(id)
    }
    t.same(unfinished, [], `every job ended (${ended.succeeded} succeeded, ${ended.failed} failed)`)
    t.same(
      answers.filter((s) => s >= 500 && s !== 503),
      [],
      'no 5xx other than 503 while the database was down',
    )
    t.equal(exit, undefined, 'the server process is still running')
    t.same(dropped, [], 'every waiter got an answer')

    const after = await json(`/api/environments/${envIds[0]}/generate?wait=true`, {
      method: 'POST',
      body: JSON.stringify({ format: 'terraform', options: {} }),
    })
    t.equal(after.status, 200, `a generation after the recovery succeeds (${JSON.stringify(after.body?.error ?? null)})`)
    t.comment(`answers: ${JSON.stringify(Object.fromEntries(answers.reduce((m, s) => m.set(s, (m.get(s) ?? 0) + 1), new Map())))}`)
  })
}
