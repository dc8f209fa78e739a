// DELETE /api/environments/:id removes the environment's jobs and their stored archives (a document
// archive and a GridFS one): afterwards GET /api/jobs/:id and its download answer 404 and nothing of
// them is left in the database; another environment's jobs and archives stay.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { INLINE_LIMIT_BYTES } from '@ies/server/core/archive-limits'
import { zipTree } from '@ies/processor-lib'
import { startTestApp } from '../../harness/app.ts'
import { environmentBody, generateAndWait, unzip } from '../../harness/jobs.ts'

t.test('deleting an environment removes its jobs and archives', async (t) => {
  const { app, url, auth, db } = await startTestApp(t)
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const database = db.client.db()
  const createEnv = async (name: string) => {
    const res = await fetch(`${url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(environmentBody({ name })) })
    t.equal(res.status, 201)
    return ((await res.json()) as any).data.id as string
  }
  const generated = async (envId: string) => {
    const done = await generateAndWait({ url, auth }, envId)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    return done.id
  }
  const download = (jobId: string) => fetch(`${url}/api/jobs/${jobId}/download`, { headers: auth('dev') })

  const doomed = await createEnv('doomed')
  const kept = await createEnv('kept')
  const small = await generated(doomed)
  const large = await generated(doomed)
  const other = await generated(kept)

  // The second job's archive replaced by one over the inline limit, stored in GridFS.
  const big = await zipTree([{ path: 'terraform/blob.bin', content: randomBytes(INLINE_LIMIT_BYTES + 1024), mode: 0o644 }], { level: 0 })
  const stored = await app.jobs.archives.put(large, 'doomed-terraform-big.zip', big)
  t.notOk(typeof stored.id === 'string', 'a GridFS archive')
  await app.jobs.archives.remove([large])
  await app.jobs.store.history.updateOne({ _id: large }, { $set: { archiveId: stored.id, 'result.archive.size': stored.size } })
  app.jobs.store.forget([large]) // the record was changed behind the store's back
  t.equal((await download(large)).status, 200, 'the GridFS archive downloads')

  const count = async (collection: string, filter: object) => database.collection(collection).countDocuments(filter)
  t.equal(await count('jobHistory', { environmentId: doomed }), 2, 'finished jobs are in the history')
  t.equal(await count('archiveDocuments', { _id: small as any }), 1)
  t.equal(await count('archives.files', { _id: stored.id as any }), 1)
  t.ok((await count('archives.chunks', { files_id: stored.id as any })) > 0)
  t.ok((await count('jobClaims', { jobId: { $in: [small, large] } })) >= 2)

  const deleted = await fetch(`${url}/api/environments/${doomed}`, { method: 'DELETE', headers: auth('dev') })
  t.equal(deleted.status, 204)

  for (const jobId of [small, large]) {
    const job = await fetch(`${url}/api/jobs/${jobId}`, { headers: auth('dev') })
    t.equal(job.status, 404, 'GET /api/jobs/:id: 404')
    t.equal(((await job.json()) as any).error.code, 'NOT_FOUND')
    t.equal((await download(jobId)).status, 404, 'its download: 404')
  }
  t.equal(
    (await count('jobs', { environmentId: doomed })) + (await count('jobHistory', { environmentId: doomed })),
    0,
    'no job record left',
  )
  t.equal(await count('archiveDocuments', { _id: small as any }), 0, 'the document archive is gone')
  t.equal(await count('archives.files', { _id: stored.id as any }), 0, 'the GridFS file is gone')
  t.equal(await count('archives.chunks', { files_id: stored.id as any }), 0, 'and its chunks')
  t.equal(await count('jobClaims', { jobId: { $in: [small, large] } }), 0, "and the jobs' claims")

  t.equal((await fetch(`${url}/api/jobs/${other}`, { headers: auth('dev') })).status, 200, "another environment's job stays")
  const otherDownload = await download(other)
  t.equal(otherDownload.status, 200, 'with its archive')
  t.ok((await unzip(Buffer.from(await otherDownload.arrayBuffer()))).has('terraform/main.tf'))
})
