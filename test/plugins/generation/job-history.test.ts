// An environment's job history (GET /api/environments/:id/jobs) and what a generation produced
// (GET /api/jobs/:id/files): newest first, page by page through `nextCursor`, owner-only, bad
// parameters a 400 naming the field; the file list is the archive's, with sizes.
import t from 'tap'
import { unzipToFiles } from '@ies/processor-lib'
import { startTestApp } from '../../harness/app.ts'
import { environmentBody, generateAndWait } from '../../harness/jobs.ts'

t.test('job history and generated files', async (t) => {
  const app = await startTestApp(t)
  const dev = { ...app.auth('dev'), 'content-type': 'application/json' }
  const get = async (path: string, headers: Record<string, string> = dev) => {
    const res = await fetch(`${app.url}${path}`, { headers })
    return { status: res.status, body: (await res.json()) as any }
  }
  const created = await fetch(`${app.url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(environmentBody()) })
  const envId = ((await created.json()) as any).data.id as string

  const empty = await get(`/api/environments/${envId}/jobs`)
  t.equal(empty.status, 200)
  t.same(empty.body.data, [], 'no job yet')
  t.same(empty.body.pagination, { limit: 20, nextCursor: null })

  const jobs = [
    await generateAndWait(app, envId, { format: 'terraform' }),
    await generateAndWait(app, envId, { format: 'helm' }),
    await generateAndWait(app, envId, { format: 'terraform', options: { includeBackend: true } }),
  ]
  const newestFirst = jobs.map((j) => j.id).reverse()

  await t.test('pages of two, newest first, until nextCursor is null', async (t) => {
    const first = await get(`/api/environments/${envId}/jobs?limit=2`)
    t.equal(first.status, 200)
    t.same(
      first.body.data.map((j: any) => j.id),
      newestFirst.slice(0, 2),
    )
    t.match(first.body.data[0], { type: 'generate', status: 'succeeded', environmentId: envId, result: { format: 'terraform' } })
    t.type(first.body.pagination.nextCursor, 'string')
    t.ok(first.body.meta.requestId, 'the envelope')
    const second = await get(`/api/environments/${envId}/jobs?limit=2&cursor=${first.body.pagination.nextCursor}`)
    t.same(
      second.body.data.map((j: any) => j.id),
      newestFirst.slice(2),
    )
    t.equal(second.body.pagination.nextCursor, null, 'the last page')
    const all = await get(`/api/environments/${envId}/jobs`)
    t.same(
      all.body.data.map((j: any) => j.id),
      newestFirst,
      'one page of the default size',
    )
  })

  await t.test('owner only; bad parameters name the field', async (t) => {
    t.equal((await get(`/api/environments/${envId}/jobs`, app.auth('other'))).status, 404, "another user's environment")
    t.equal((await get(`/api/environments/00000000-0000-4000-8000-000000000000/jobs`)).status, 404)
    const badCursor = await get(`/api/environments/${envId}/jobs?cursor=not-a-cursor`)
    t.equal(badCursor.status, 400)
    t.match(badCursor.body.error, { code: 'VALIDATION_ERROR', details: [{ field: 'cursor' }] })
    const badLimit = await get(`/api/environments/${envId}/jobs?limit=0`)
    t.equal(badLimit.status, 400)
    t.match(JSON.stringify(badLimit.body.error.details), /limit/)
  })

  await t.test('several jobs in one request; with wait, once one of them has finished', async (t) => {
    const [a, b] = [jobs[0].id, jobs[1].id]
    const both = await get(`/api/jobs?ids=${b},${a}`)
    t.equal(both.status, 200)
    t.same(
      both.body.data.map((j: any) => [j.id, j.status]),
      [
        [b, 'succeeded'],
        [a, 'succeeded'],
      ],
      'in the order asked',
    )
    t.same((await get(`/api/jobs?ids=${a}`, app.auth('other'))).body.data, [], "another user's jobs are left out")
    const queued = await fetch(`${app.url}/api/environments/${envId}/generate`, {
      method: 'POST',
      headers: dev,
      body: JSON.stringify({ format: 'terraform' }),
    })
    const id = ((await queued.json()) as any).data.id
    const waited = await get(`/api/jobs?ids=${id}&wait=true`)
    t.same(
      waited.body.data.map((j: any) => [j.id, j.status]),
      [[id, 'succeeded']],
      'answered once it had finished',
    )
    for (const ids of ['', 'a,,b', 'x'.repeat(65), Array.from({ length: 51 }, (_, i) => `id-${i}`).join(',')]) {
      const bad = await get(`/api/jobs?ids=${ids}`)
      t.equal(bad.status, 400, `ids=${ids.slice(0, 20)}`)
      t.match(JSON.stringify(bad.body.error.details), /ids/)
    }
  })

  await t.test("a generation's files are its archive's, with sizes", async (t) => {
    const job = jobs[2]
    const listed = await get(`/api/jobs/${job.id}/files`)
    t.equal(listed.status, 200)
    const download = await fetch(`${app.url}/api/jobs/${job.id}/download`, { headers: dev })
    const files = await unzipToFiles(Buffer.from(await download.arrayBuffer()), { maxFiles: 1000, maxBytes: 1 << 26 })
    t.same(
      listed.body.data.files,
      files.map((f) => ({ path: f.path, size: f.content.length })),
      'every file of the archive, in order, with its size',
    )
    t.ok(
      listed.body.data.files.some((f: any) => f.path === 'terraform/backend.tf'),
      'the backend file of this generation',
    )
    t.equal(listed.body.data.templatesCommit, (job.result as any).templatesCommit)
    t.equal(listed.body.data.files.length, (job.result as any).fileCount, 'as many as the result counts')
    t.equal((await get(`/api/jobs/${job.id}/files`, app.auth('other'))).status, 404, "another user's job")
  })
})
