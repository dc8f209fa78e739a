// Upgrade status and bulk upgrade of the caller's environments (README.md beside this file,
// "Upgrades"), and what makes an environment pushable at all (shared with POST /:id/push).
//   GET  /environments/upgrades  { data: [{ id, name, lastPush, behind }] }: pushed and behind
//   POST /environments/upgrade   { ids?, dryRun?, strategy? } -> 202 { data: { jobs, skipped } }
// An upgrade generates what the environment's last push generated (its format and options; the
// full repository for an environment never pushed) and pushes it like POST /:id/push: each job
// merges on its own, and a conflict fails that job alone (PUSH_CONFLICT).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import pMap from 'p-map'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { AppError } from '@ies/server/core/errors'
import { checkDestination, DestinationError, urlProblem } from '@ies/server/jobs/push/destination'
import type { LifecyclePushParams } from '@ies/server/jobs/push/push-job'
import { currentTemplatesCommit, upgradeStatus } from '@ies/server/jobs/push/push-records'
import type { EnvironmentRecord } from '../environments/repository.ts'
import { roleAllows, type EnvironmentAction } from '../teams/schemas.ts'
import { PUSH_DEFAULTS, Upgradable, UpgradeBody, UpgradeJobs } from './schemas.ts'

/** Why the environment cannot be pushed, as the field and sentence of a 400; null when it can. */
export async function pushProblem(
  env: EnvironmentRecord,
  allowedHosts: readonly string[],
): Promise<{ field: string; message: string } | null> {
  const url = env.gitRepository?.url
  if (!url) return { field: 'gitRepository', message: 'the environment has no Git repository to push to' }
  const problem = urlProblem(url, allowedHosts)
  if (problem) return { field: 'gitRepository.url', message: problem }
  if (!env.deployKey) return { field: 'gitRepository.deployKey', message: 'the environment has no deploy key to push with' }
  try {
    await checkDestination(url, allowedHosts)
  } catch (err) {
    if (err instanceof DestinationError) return { field: 'gitRepository.url', message: err.message }
    throw err
  }
  return null
}

/** Environments read per page when all of a caller's are needed. */
const PAGE = 500

/**
 * Last-push records read at a time. All of a user's at once (thousands of environments) queued as
 * many reads in the driver, where those that waited past its queue timeout failed the request, and
 * held the event loop for seconds while they were created and answered.
 */
const STATUS_READS = 8

export const upgradeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const environments = app.environments
  const records = app.jobs.pushing.records
  environments.onEnvironmentDeleted((env) => records.removeForEnvironment(env._id))

  /** The caller's own environments and their teams' where their role allows the action. */
  async function allOf(principal: FastifyRequest['principal'], action: EnvironmentAction): Promise<EnvironmentRecord[]> {
    const out: EnvironmentRecord[] = []
    for (const scope of await environments.scopes(principal)) {
      if (!roleAllows(scope.role, action)) continue
      for (let page = 1, read = 0; ; page++) {
        const { items, total } = await environments.list(scope.ownerKey, { page, limit: PAGE })
        out.push(...items)
        read += items.length
        if (items.length < PAGE || read >= total) break
      }
    }
    return out
  }

  /** One named environment the caller may push, or why not (404 and 403 become a skip reason). */
  async function operable(principal: FastifyRequest['principal'], id: string): Promise<EnvironmentRecord | string> {
    try {
      return (await environments.access(principal, id, 'operate')).env
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 404) return 'not found'
      if (err instanceof AppError && err.statusCode === 403) return err.message
      throw err
    }
  }

  /** The status of each environment; the templates commit is read once, and only if one was pushed. */
  async function statusOf(request: FastifyRequest, envs: EnvironmentRecord[]) {
    let commit: Promise<string | null> | undefined
    const templatesCommit = () => (commit ??= currentTemplatesCommit(app.templates, request.log))
    return pMap(envs, async (env) => ({ env, ...(await upgradeStatus(records, env, templatesCommit)) }), { concurrency: STATUS_READS })
  }

  const isBehind = (b: { templates: boolean; configuration: boolean }) => b.templates || b.configuration

  app.get('/upgrades', { schema: { response: { 200: Envelope(Type.Array(Upgradable)), 401: ErrorBody } } }, async (request) => {
    const statuses = await statusOf(request, await allOf(request.principal, 'read'))
    const data = statuses
      .filter((s) => s.lastPush && isBehind(s.behind))
      .map((s) => ({ id: s.env._id, name: s.env.name, lastPush: s.lastPush!, behind: s.behind }))
    return ok(request, data)
  })

  app.post(
    '/upgrade',
    { schema: { body: UpgradeBody, response: { 202: Envelope(UpgradeJobs), 400: ErrorBody, 401: ErrorBody } } },
    async (request, reply) => {
      const { userId } = request.principal
      const body = request.body
      const skipped: { environmentId: string; reason: string }[] = []
      let candidates: EnvironmentRecord[]
      if (body.ids) {
        candidates = []
        for (const id of new Set(body.ids)) {
          const env = await operable(request.principal, id)
          if (typeof env !== 'string') candidates.push(env)
          else skipped.push({ environmentId: id, reason: env })
        }
      } else {
        candidates = await allOf(request.principal, 'operate')
      }
      const jobs: { environmentId: string; jobId: string }[] = []
      for (const { env, pushed, behind } of await statusOf(request, candidates)) {
        if (!body.ids && !(pushed && isBehind(behind))) continue
        if (env.provider !== 'aws') {
          skipped.push({ environmentId: env._id, reason: 'only provider aws generates a stack' })
          continue
        }
        const problem = await pushProblem(env, app.config.push.allowedHosts)
        if (problem) {
          skipped.push({ environmentId: env._id, reason: `${problem.field}: ${problem.message}` })
          continue
        }
        const params: LifecyclePushParams = {
          format: pushed?.format ?? PUSH_DEFAULTS.format,
          options: pushed ? { ...pushed.options } : { ...PUSH_DEFAULTS.options },
          dryRun: body.dryRun,
          strategy: body.strategy,
        }
        const job = await app.jobs.enqueue('push', userId, env._id, params)
        await app.history.record(request, {
          kind: body.dryRun ? 'push-dry-run' : 'upgrade',
          environment: { id: env._id, name: env.name },
          jobId: job._id,
        })
        jobs.push({ environmentId: env._id, jobId: job._id })
      }
      return reply.code(202).send(ok(request, { jobs, skipped }))
    },
  )
}
