// POST /api/environments/:id/push: 202 with the queued push job (body: format?, options?,
// generationJobId?, dryRun?, strategy?; see README.md beside this file). Registered under
// /environments like plugins/generation, whose generation jobs a push may take its files from.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { policyDenied } from '@ies/server/core/errors'
import type { LifecyclePushParams } from '@ies/server/jobs/push/push-job'
import { EnvironmentParams } from '@ies/api/schemas/generation'
import { Job, toJob } from '@ies/api/schemas/jobs'
import { PUSH_DEFAULTS, PushBody } from '@ies/api/schemas/push'
import { isUsableGeneration, PUSH_PROBLEMS, pushRefusal } from '@ies/server/jobs/push/push-rule'
import { deniedDetails } from '@ies/api/schemas/policies'

export const autoPrefix = '/environments'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody }

const push: FastifyPluginAsyncTypebox = async (app) => {
  /** The format and options to push: the body's (or the full repository), or those of the generation job it names (the push rule's `isUsableGeneration`). */
  async function whatToPush(
    userId: string,
    environmentId: string,
    body: PushBody,
  ): Promise<Pick<LifecyclePushParams, 'format' | 'options'>> {
    if (!body.generationJobId) return { format: body.format ?? PUSH_DEFAULTS.format, options: body.options ?? { ...PUSH_DEFAULTS.options } }
    const generationJob = await app.jobs.store.get(userId, body.generationJobId)
    if (!isUsableGeneration(generationJob, environmentId)) throw pushRefusal(PUSH_PROBLEMS.generation)
    const { format, options } = generationJob.params
    return { format, options }
  }

  /**
   * An environment the caller may push (operator or more) that the push rule accepts (`app.pushProblem`:
   * its provider, repository, deploy key and stored values) and the organisation's rules do not
   * refuse as the push would generate it (after its pending migrations; a rule added since its last
   * write counts).
   */
  async function pushable(request: FastifyRequest, id: string) {
    const { env, team } = await app.environments.access(request.principal, id, 'operate')
    const problem = await app.pushProblem(env)
    if (problem) throw pushRefusal(problem)
    // The rules judge what the push generates: the configuration after its pending migrations.
    const pushed = await app.pushedConfiguration(env)
    const { deny } = await app.policies.evaluate(pushed as unknown as Record<string, unknown>, {
      team: team?.name ?? null,
      log: request.log,
    })
    if (deny.length > 0) throw policyDenied(deniedDetails(deny))
    return env
  }

  app.post(
    '/:id/push',
    { schema: { params: EnvironmentParams, body: PushBody, response: { 202: Envelope(Job), ...errors } } },
    async (request, reply) => {
      const { userId } = request.principal
      const env = await pushable(request, request.params.id)
      const body = request.body
      const params: LifecyclePushParams = {
        ...(await whatToPush(userId, env._id, body)),
        dryRun: body.dryRun,
        strategy: body.strategy,
        ...(body.plan && { plan: true }),
        ...(body.confirmDestroy && { confirmDestroy: body.confirmDestroy }),
        ...(body.generationJobId && { generationJobId: body.generationJobId }),
      }
      const job = await app.approvals.enqueuePush(request.principal, env._id, params, request.log)
      const kind = body.dryRun ? 'push-dry-run' : 'push'
      await app.history.record(request, { kind, environment: { id: env._id, name: env.name }, jobId: job._id })
      return reply.code(202).send(ok(request, toJob(job)))
    },
  )
}

export default push
