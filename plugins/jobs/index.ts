// /api/jobs: a job's status (`?wait=true`: once it has finished, long polling), and the archive of a
// successful generation and its file list (`/files`: paths and sizes). Only the owner sees a job;
// anyone else gets 404. Download: 404 for an unknown or foreign job and for a push job (it has no
// archive); 409 CONFLICT while the generation is queued or running, or when it failed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { archiveListing } from '@ies/processor-lib/tree'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { conflict, notFound } from '@ies/server/core/errors'
import type { ArchiveId } from '@ies/server/jobs/queue/archives'
import type { GenerateResult } from '@ies/server/jobs/queue/store'
import { Job, JobFiles, JobParams, JobQuery, toJob } from './schemas.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody }

const jobs: FastifyPluginAsyncTypebox = async (app) => {
  const owned = async (userId: string, jobId: string) => {
    const record = await app.jobs.store.get(userId, jobId)
    if (!record) throw notFound('Job not found')
    return record
  }

  app.get(
    '/:jobId',
    { schema: { params: JobParams, querystring: JobQuery, response: { 200: Envelope(Job), ...errors } } },
    async (request) => {
      const { userId } = request.principal
      const { jobId } = request.params
      if (!request.query.wait) return ok(request, toJob(await owned(userId, jobId)))
      const record = await app.jobs.waitFor(userId, jobId, app.config.jobs.waitTimeoutMs)
      if (!record) throw notFound('Job not found')
      return ok(request, toJob(record))
    },
  )

  /** A successful generation's record and result; 404 for a push job, 409 before success. */
  const generated = async (userId: string, jobId: string) => {
    const record = await owned(userId, jobId)
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
    const { record, result, archiveId } = await generated(request.principal.userId, request.params.jobId)
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
      const { result, archiveId } = await generated(request.principal.userId, request.params.jobId)
      const { filename, size } = result.archive
      reply.header('Content-Type', 'application/zip')
      reply.header('Content-Length', String(size))
      reply.header('Content-Disposition', `attachment; filename="${filename}"`)
      return reply.send(await app.jobs.archives.open(archiveId))
    },
  )
}

export default jobs
