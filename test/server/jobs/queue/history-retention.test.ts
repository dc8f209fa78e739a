// The queue holds only queued and running jobs: a finished job's record moves to the insert-only
// `jobHistory` and is still served (status, download). Retention keeps the last
// RETENTION_KEEP_PER_ENVIRONMENT finished jobs per environment and type and anything younger than
// RETENTION_MAX_AGE_MS; a sweep removes the rest with their archives (404 afterwards).
import t from 'tap'
import { startTestApp } from '../../../harness/app.ts'
import { eventually } from '../../../harness/eventually.ts'
import { environmentBody, generateAndWait } from '../../../harness/jobs.ts'

t.test('finished jobs move to the history; retention keeps the last N or the young', async (t) => {
  const { app, url, auth, db } = await startTestApp(t, { RETENTION_KEEP_PER_ENVIRONMENT: '2', RETENTION_MAX_AGE_MS: '0' })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const database = db.client.db()
  const createEnv = async (name: string) => {
    const res = await fetch(`${url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(environmentBody({ name })) })
    return ((await res.json()) as any).data.id as string
  }
  const envA = await createEnv('retained-a')
  const envB = await createEnv('retained-b')
  const jobsA: string[] = []
  for (let i = 0; i < 4; i++) jobsA.push((await generateAndWait({ url, auth }, envA)).id)
  const jobB = (await generateAndWait({ url, auth }, envB)).id

  // The queue record is removed after the waiter is answered: wait for that state.
  const queued = await eventually(
    () => database.collection('jobs').countDocuments({}),
    (n) => n === 0,
  )
  t.equal(queued, 0, 'the queue holds no finished job')
  t.equal(await database.collection('jobHistory').countDocuments({}), 5, 'every finished job is in the history')
  const download = (id: string) => fetch(`${url}/api/jobs/${id}/download`, { headers: auth('dev') })
  const first = await download(jobsA[0])
  t.equal(first.status, 200, 'a finished job downloads from the history')
  await first.arrayBuffer()

  t.same(await app.jobs.sweep(), { jobs: 2, claims: 0, others: { rollouts: 0 } }, 'the sweep removes the two oldest of environment A')
  for (const id of jobsA.slice(0, 2)) {
    const res = await fetch(`${url}/api/jobs/${id}`, { headers: auth('dev') })
    t.equal(res.status, 404, 'a removed job is gone')
    t.equal((await download(id)).status, 404)
    t.equal(await database.collection('archiveDocuments').countDocuments({ _id: id as never }), 0, 'with its archive')
  }
  for (const id of [...jobsA.slice(2), jobB]) {
    const res = await download(id)
    t.equal(res.status, 200, 'the last two of A and the one of B stay')
    await res.arrayBuffer()
  }
  t.same(await app.jobs.sweep(), { jobs: 0, claims: 0, others: { rollouts: 0 } }, 'a second sweep finds nothing more')
})

t.test('jobs younger than the age limit stay whatever their number', async (t) => {
  const { app, url, auth } = await startTestApp(t, { RETENTION_KEEP_PER_ENVIRONMENT: '1', RETENTION_MAX_AGE_MS: '3600000' })
  const res = await fetch(`${url}/api/environments`, {
    method: 'POST',
    headers: { ...auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify(environmentBody({ name: 'young' })),
  })
  const envId = ((await res.json()) as any).data.id
  for (let i = 0; i < 3; i++) await generateAndWait({ url, auth }, envId)
  t.same(await app.jobs.sweep(), { jobs: 0, claims: 0, others: { rollouts: 0 } })
})
