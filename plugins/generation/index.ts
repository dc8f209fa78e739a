// Generation of an environment, under /api/environments (this folder's routes are registered with
// that prefix; the environment resource lives in plugins/environments, push in plugins/push,
// upgrades in plugins/upgrades).
//   POST /environments/:id/generate   202 with the queued job; ?wait=true: 200 with the files
//   POST /environments/terraform-backend/create   the S3 state bucket (terraform-backend.ts)
//   GET  /environments/:id/jobs       the environment's jobs, newest first, by cursor (environment-jobs.ts)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { unzipToFiles } from '@ies/processor-lib'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { AppError, fieldError } from '@ies/server/core/errors'
import { isChartFile } from '@ies/server/jobs/generation/selection'
import { PROVIDER_MESSAGE, PUSHED_PROVIDER } from '@ies/server/jobs/push/push-rule'
import { UNZIP_LIMITS } from '@ies/server/core/archive-limits'
import type { ArchiveId } from '@ies/server/jobs/queue/archives'
import type { GenerateResult } from '@ies/server/jobs/queue/store'
import { Job, toJob } from '@ies/api/schemas/jobs'
import { environmentJobsRoutes } from './environment-jobs.ts'
import { terraformBackendRoutes } from './terraform-backend.ts'
import { EnvironmentParams, GeneratedFiles, GenerateBody, GenerateQuery } from '@ies/api/schemas/generation'

export const autoPrefix = '/environments'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody }

const generation: FastifyPluginAsyncTypebox = async (app) => {
  const environments = app.environments
  await app.register(terraformBackendRoutes)
  await app.register(environmentJobsRoutes)

  /** An environment the caller may generate (operator or more), of a provider that generates. */
  const environmentOf = async (principal: Parameters<typeof environments.access>[0], id: string) => {
    const { env } = await environments.access(principal, id, 'operate')
    if (env.provider !== PUSHED_PROVIDER) throw fieldError('provider', PROVIDER_MESSAGE)
    return env
  }

  app.post(
    '/:id/generate',
    {
      schema: {
        params: EnvironmentParams,
        querystring: GenerateQuery,
        body: GenerateBody,
        response: { 200: Envelope(GeneratedFiles), 202: Envelope(Job), ...errors },
      },
    },
    async (request, reply) => {
      const { userId } = request.principal
      const env = await environmentOf(request.principal, request.params.id)
      const job = await app.jobs.enqueue('generate', userId, env._id, request.body)
      await app.history.record(request, { kind: 'generate', environment: { id: env._id, name: env.name }, jobId: job._id })
      if (!request.query.wait) return reply.code(202).send(ok(request, toJob(job)))

      const done = await app.jobs.waitFor(userId, job._id, app.config.jobs.waitTimeoutMs)
      if (!done || done.status === 'queued' || done.status === 'running') return reply.code(202).send(ok(request, toJob(done ?? job)))
      if (done.status === 'failed') {
        throw new AppError(
          422,
          done.error?.code ?? 'GENERATION_FAILED',
          done.error?.message ?? 'The generation failed',
          done.error?.details,
        )
      }
      const archive = await app.jobs.archives.read(done.archiveId as ArchiveId)
      const files: Record<string, string> = {}
      const helm: Record<string, string> = {}
      for (const file of await unzipToFiles(archive, UNZIP_LIMITS)) {
        ;(isChartFile(file.path) ? helm : files)[file.path] = file.content.toString('utf8')
      }
      return reply
        .code(200)
        .send(ok(request, { jobId: done._id, templatesCommit: (done.result as GenerateResult).templatesCommit, files, helm }))
    },
  )
}

export default generation
