// POST /api/environments/:id/plan    202 with a queued `plan` job: the Terraform plan of the tree a
//                                     push would write (the merged branch tree); ?wait=true: 200 with the finished job
// POST /api/environments/:id/drift   the same for a `drift` job: the branch head's tree, refresh only
// Both need the environment pushable (a Git repository and deploy key), a state backend and an aws
// cloud credential; without them: 409 PLAN_UNAVAILABLE with the reason. The job work is
// server/src/jobs/plan/ (README.md beside this file).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { EnvironmentParams } from '@ies/api/schemas/generation'
import { Job, toJob } from '@ies/api/schemas/jobs'
import { PlanQuery } from '@ies/api/schemas/plans'
import { PUSH_DEFAULTS } from '@ies/api/schemas/push'
import { DriftSchedule } from './drift-schedule.ts'
import { planRefusal } from './plan-refusal.ts'

export const autoPrefix = '/environments'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody }

/** What a plan or drift job is queued with: a push dry run of the environment's default format. */
const planParams = () => ({ format: PUSH_DEFAULTS.format, options: { ...PUSH_DEFAULTS.options }, dryRun: true })

const plans: FastifyPluginAsyncTypebox = async (app) => {
  // Drift checks on a schedule (environments' driftCheckHours), queued by the replicas that run jobs.
  const schedule = new DriftSchedule({
    db: app.mongo.db,
    config: app.config.plan.driftSchedule,
    log: app.log,
    scheduled: () => app.environments.driftScheduled(),
    environment: (id) => app.environments.forJob(id),
    checkable: async (env) => !(await planRefusal(app, env)),
    lastDrift: (id) => app.jobs.drift.last(id),
    job: (id) => app.jobs.store.byId(id),
    enqueue: async (env) => (await app.jobs.enqueue('drift', env.userId, env._id, planParams()))._id,
  })
  app.environments.onEnvironmentDeleted((env) => schedule.remove(env._id))
  if (app.config.jobs.process) {
    let stop: (() => void) | undefined
    app.addHook('onReady', async () => {
      stop = schedule.start()
    })
    app.addHook('onClose', async () => stop?.())
  }

  /** An environment the caller may plan (operator or more), pushable, with a state backend and a cloud credential. */
  async function plannable(principal: FastifyRequest['principal'], id: string) {
    const { env } = await app.environments.access(principal, id, 'operate')
    const refusal = await planRefusal(app, env)
    if (refusal) throw refusal
    return env
  }

  /** Queues a plan or a drift check of the environment: 202 with the job, or 200 with it finished (`?wait=true`). */
  async function queue(type: 'plan' | 'drift', principal: FastifyRequest['principal'], id: string, wait: boolean) {
    const env = await plannable(principal, id)
    const job = await app.jobs.enqueue(type, principal.userId, env._id, planParams())
    // The history records the plan once it has finished, with its summary (jobs/plan/push-plan.ts).
    if (!wait) return { code: 202 as const, job }
    const done = await app.jobs.waitFor(principal.userId, job._id, app.config.jobs.waitTimeoutMs)
    if (!done || done.status === 'queued' || done.status === 'running') return { code: 202 as const, job: done ?? job }
    return { code: 200 as const, job: done }
  }
  const schema = { params: EnvironmentParams, querystring: PlanQuery, response: { 200: Envelope(Job), 202: Envelope(Job), ...errors } }
  app.post('/:id/plan', { schema }, async (request, reply) => {
    const { code, job } = await queue('plan', request.principal, request.params.id, request.query.wait)
    return reply.code(code).send(ok(request, toJob(job)))
  })
  app.post('/:id/drift', { schema }, async (request, reply) => {
    const { code, job } = await queue('drift', request.principal, request.params.id, request.query.wait)
    return reply.code(code).send(ok(request, toJob(job)))
  })
}

export default plans
