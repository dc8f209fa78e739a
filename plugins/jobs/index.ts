// /api/jobs: a job's status (`?wait=true`: once it has finished, long polling), and the archive of a
// successful generation and its file list (`/files`: paths and sizes). A job is seen by who queued it
// and by whoever may read its environment (a team's members, app.environments.access: also a job the
// drift schedule queued under the team), on every route here; anyone else gets 404 (a batch leaves it
// out). Download: 404 for an unknown or foreign job and for a push job (it has no archive); 409
// CONFLICT while the generation is queued or running, or when it failed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { archiveListing } from '@ies/processor-lib/tree'
import { ArrayEnvelope, Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { AppError, conflict, fieldError, notFound } from '@ies/server/core/errors'
import type { ArchiveId } from '@ies/server/jobs/queue/archives'
import type { GenerateResult } from '@ies/server/jobs/queue/store'
import { Job, JobBatchQuery, JobFiles, JobParams, JobQuery, MAX_BATCH_JOBS, toJob } from '@ies/api/schemas/jobs'

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody }

const jobs: FastifyPluginAsyncTypebox = async (app) => {
  const owned = async (principal: FastifyRequest['principal'], jobId: string) => {
    const record = await readable(principal, jobId)
    if (!record) throw notFound('Job not found')
    return record
  }

  /**
   * The job if the caller may see it, else null: one they queued, or any job of an environment they
   * may read (a team's: also what another member or the drift schedule queued under the team).
   * `environments` keeps the access answers of one request by environment.
   */
  async function readable(principal: FastifyRequest['principal'], jobId: string, environments = new Map<string, Promise<boolean>>()) {
    const record = await app.jobs.store.byId(jobId)
    if (!record) return null
    if (record.userId === principal.userId) return record
    let allowed = environments.get(record.environmentId)
    if (!allowed) environments.set(record.environmentId, (allowed = mayRead(principal, record.environmentId)))
    return (await allowed) ? record : null
  }

  async function mayRead(principal: FastifyRequest['principal'], environmentId: string): Promise<boolean> {
    try {
      await app.environments.access(principal, environmentId, 'read')
      return true
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 404) return false
      throw err
    }
  }

  // Several jobs at once (the list's "Update all" follows every push with one request per round):
  // the jobs among `ids` the caller may see (as `GET /:jobId`), in that order; the others are left out.
  // 431: a list of ids in characters outside ASCII can make the URL longer than the 16 KB of headers Node reads.
  app.get(
    '/',
    { schema: { querystring: JobBatchQuery, response: { 200: ArrayEnvelope(Job), ...errors, 431: ErrorBody } } },
    async (request) => {
      const ids = [...new Set(request.query.ids.split(',').map((id) => id.trim()))]
      if (ids.length > MAX_BATCH_JOBS || ids.some((id) => !/^[\w-]{1,64}$/.test(id))) {
        throw fieldError('ids', `must be at most ${MAX_BATCH_JOBS} job ids separated by commas`)
      }
      const environments = new Map<string, Promise<boolean>>()
      const visible = (await Promise.all(ids.map((id) => readable(request.principal, id, environments)))).filter((r) => r !== null)
      // Waiting, for whoever queued them: each was checked above (a job keeps its owner and environment).
      const records =
        request.query.wait && visible.length > 0
          ? await app.jobs.waitForAny(
              null,
              visible.map((r) => r._id),
              app.config.jobs.waitTimeoutMs,
            )
          : visible
      return ok(request, records.filter((r) => r !== null).map(toJob))
    },
  )

  app.get(
    '/:jobId',
    { schema: { params: JobParams, querystring: JobQuery, response: { 200: Envelope(Job), ...errors } } },
    async (request) => {
      const { jobId } = request.params
      const visible = await owned(request.principal, jobId)
      if (!request.query.wait) return ok(request, toJob(visible))
      const record = await app.jobs.waitFor(visible.userId, jobId, app.config.jobs.waitTimeoutMs)
      if (!record) throw notFound('Job not found')
      return ok(request, toJob(record))
    },
  )

  /** A successful generation's record and result; 404 for a push job, 409 before success. */
  const generated = async (principal: FastifyRequest['principal'], jobId: string) => {
    const record = await owned(principal, jobId)
    if (record.type !== 'generate') throw notFound('This job has no archive')
    const result = record.result as GenerateResult | undefined
    if (record.status !== 'succeeded' || !record.archiveId || !result) {
      throw conflict(
        record.status === 'failed' ? 'The generation failed; there is no archive' : `The archive is not ready (job ${record.status})`,
      )
    }
    return { record, result, archiveId: record.archiveId as ArchiveId }
  }

  app.get('/:jobId/files', { schema: { params: JobParams, response: { 200: Envelope(JobFiles), ...errors } } }, async (request) => {
    const { record, result, archiveId } = await generated(request.principal, request.params.jobId)
    const files = await archiveListing(await app.jobs.archives.read(archiveId))
    return ok(request, { jobId: record._id, templatesCommit: result.templatesCommit, files })
  })

  app.get(
    '/:jobId/download',
    {
      schema: {
        params: JobParams,
        response: {
          200: { description: 'The zip archive.', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { result, archiveId } = await generated(request.principal, request.params.jobId)
      const { filename, size } = result.archive
      reply.header('Content-Type', 'application/zip')
      reply.header('Content-Length', String(size))
      reply.header('Content-Disposition', `attachment; filename="${filename}"`)
      return reply.send(await app.jobs.archives.open(archiveId))
    },
  )
}

export default jobs
