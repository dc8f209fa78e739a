// Upgrade status and bulk upgrade of the caller's environments (README.md beside this file,
// "Upgrades"; docs/updating.md), and what makes an environment pushable at all (shared with POST /:id/push).
//   GET  /environments/upgrades      { data: [{ id, name, lastPush, behind, templatesPin?, problems }] }: pushed and behind
//   POST /environments/upgrade       { ids?, names?, pattern?, waves?, to?, dryRun?, strategy? } -> 202 { data: { jobs, skipped, rolloutId } }
//   GET  /environments/upgrade/:id   the rollout: its waves, each environment's jobs and outcome
// An upgrade generates what the environment's last push generated (its format and options; the
// full repository for an environment never pushed) from one templates version (`to`, default the
// newest) and pushes it like POST /:id/push. Without `waves` the pushes start at once and each
// merges on its own (a conflict fails that job alone); with `waves` the rollout (rollouts.ts)
// previews and pushes wave after wave and stops at the first conflict or failed push.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import pMap from 'p-map'
import picomatch from 'picomatch'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { AppError, notFound, unavailable, validationError } from '@ies/server/core/errors'
import { catalogView, type TypedCatalog } from '@ies/processor-lib/contract/view'
import { checkDestination, DestinationError, urlProblem } from '@ies/server/jobs/push/destination'
import { currentTemplatesCommit, pinnedVersions, upgradeStatus } from '@ies/server/jobs/push/push-records'
import type { EnvironmentRecord } from '../environments/repository.ts'
import type { EnvironmentInput } from '@ies/api/schemas/environments'
import { roleAllows, type EnvironmentAction } from '@ies/api/schemas/teams'
import { problemsOf, upgradeStatusOf, type StatusSources } from './upgrade-status.ts'
import { Rollouts, type RolloutDeps, type RolloutDoc, type RolloutEnvironment } from './rollouts.ts'
import { PUSH_DEFAULTS } from '@ies/api/schemas/push'
import { RolloutParams, RolloutView, Upgradable, UpgradeBody, UpgradeJobs } from '@ies/api/schemas/upgrades'

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

/** How often a replica that runs jobs moves the running rollouts on. */
const ROLLOUT_TICK_MS = 1000

/** How often moving a pin is tried against concurrent writes of the environment. */
const PIN_ATTEMPTS = 4

const isBehind = (b: { templates: boolean; configuration: boolean }) => b.templates || b.configuration

function rolloutView(doc: RolloutDoc): RolloutView {
  return {
    id: doc._id,
    status: doc.status,
    dryRun: doc.dryRun,
    strategy: doc.strategy,
    templatesCommit: doc.templatesCommit,
    waves: doc.waves.map((w) => ({
      pattern: w.pattern,
      status: w.status,
      environments: w.environments.map(({ push: _push, ...e }) => e),
    })),
    skipped: doc.skipped,
    ...(doc.stopped && { stopped: doc.stopped }),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  }
}

/** What a 403 says the caller's role lacks (its `details`), else its message. */
const refusalReason = (err: AppError) => (err.details as { message?: string }[] | undefined)?.[0]?.message ?? err.message

export const upgradeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const environments = app.environments
  const records = app.jobs.pushing.records
  const rollouts = new Rollouts(app.mongo.db)
  // A deleted environment's line in the upgrade status goes with the next read (upgrade-status.ts).
  environments.onEnvironmentDeleted((env) => records.removeForEnvironment(env._id))

  /** The caller's own environments and their teams' where their role allows the action. */
  async function allOf(principal: FastifyRequest['principal'], action: EnvironmentAction): Promise<EnvironmentRecord[]> {
    const out: EnvironmentRecord[] = []
    for (const scope of await ownerKeys(principal, action)) {
      for (let page = 1, read = 0; ; page++) {
        const { items, total } = await environments.list(scope, { page, limit: PAGE })
        out.push(...items)
        read += items.length
        if (items.length < PAGE || read >= total) break
      }
    }
    return out
  }

  /** The owner keys (the caller's own, their teams') whose environments the caller's role allows the action on. */
  async function ownerKeys(principal: FastifyRequest['principal'], action: EnvironmentAction): Promise<string[]> {
    return (await environments.scopes(principal)).filter((scope) => roleAllows(scope.role, action)).map((scope) => scope.ownerKey)
  }

  /** One named environment the caller may push, or why not (404 and 403 become a skip reason). */
  async function operable(principal: FastifyRequest['principal'], id: string): Promise<EnvironmentRecord | string> {
    try {
      return (await environments.access(principal, id, 'operate')).env
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 404) return 'not found'
      if (err instanceof AppError && err.statusCode === 403) return refusalReason(err)
      throw err
    }
  }

  /** The typed view of the current catalog, or null (logged) when there is no usable one. */
  async function catalogNow(log: FastifyBaseLogger): Promise<TypedCatalog | null> {
    try {
      const doc = (await app.catalog.get()).catalog
      if (doc?.schemaVersion === 1) return catalogView(doc).catalog
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'upgrades: catalog unavailable; stored values not checked')
    }
    return null
  }

  /** The status of each environment; the templates commit is read once, and only if one was pushed. */
  async function statusOf(request: FastifyRequest, envs: EnvironmentRecord[]) {
    let commit: Promise<string | null> | undefined
    const templatesCommit = () => (commit ??= currentTemplatesCommit(app.templates, request.log))
    const versions = pinnedVersions(app.templates)
    const catalog = await catalogNow(request.log)
    return pMap(
      envs,
      async (env) => ({
        env,
        problems: problemsOf(environments, env, catalog),
        ...(await upgradeStatus(records, env, templatesCommit, versions)),
      }),
      { concurrency: STATUS_READS },
    )
  }

  /** Sets the environment's pin, re-read and retried when another write came first. */
  async function setPin(_userId: string, id: string, pin: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // Under its owner (the requester's or a team's): the rollout's request checked the access.
      const found = await environments.forJob(id)
      const env = found && (await environments.get(found.userId, id))
      if (!env || env.templatesPin === pin) return
      const {
        _id,
        userId: _owner,
        deployKey: _key,
        status: _s,
        stateKeyScope: _k,
        version: _v,
        createdAt: _c,
        updatedAt: _u,
        ...input
      } = env
      try {
        await environments.replace(env, { ...input, templatesPin: pin } as EnvironmentInput, 'keep')
        return
      } catch (err) {
        if (attempt >= PIN_ATTEMPTS) throw err
      }
    }
  }

  const deps: RolloutDeps = {
    enqueuePush: async (userId, environmentId, params) => (await app.jobs.enqueue('push', userId, environmentId, params))._id,
    job: (userId, jobId) => app.jobs.store.get(userId, jobId),
    setPin,
  }

  // A replica that runs jobs moves the running rollouts on (any replica may; each step is claimed).
  let ticking = false
  const tick = async () => {
    if (ticking) return
    ticking = true
    try {
      for (const doc of await rollouts.running()) await rollouts.advance(doc, deps)
    } catch (err) {
      app.log.warn({ err: { message: (err as Error).message } }, 'upgrade rollouts: could not move on; tried again shortly')
    } finally {
      ticking = false
    }
  }
  let timer: NodeJS.Timeout | undefined
  if (app.config.jobs.process) {
    app.addHook('onReady', async () => {
      timer = setInterval(() => void tick(), ROLLOUT_TICK_MS)
      timer.unref()
    })
    app.addHook('onClose', async () => clearInterval(timer))
  }

  const statusSources: StatusSources = {
    environments,
    store: records.status,
    templates: app.templates,
    catalog: async (log) => {
      const view = await catalogNow(log)
      return view && { view, commit: (await app.catalog.get()).catalog.commit }
    },
  }

  app.get('/upgrades', { schema: { response: { 200: Envelope(Type.Array(Upgradable)), 401: ErrorBody } } }, async (request) =>
    // One status document per owner the caller may read: their own, and each of their teams'.
    ok(
      request,
      (
        await pMap(await ownerKeys(request.principal, 'read'), (owner) => upgradeStatusOf(statusSources, owner, request.log), {
          concurrency: 2,
        })
      ).flat(),
    ),
  )

  /** The environments a body selects (ids, names, pattern: each, behind or not; none: those behind), and those it names that do not exist. */
  async function selection(principal: FastifyRequest['principal'], body: UpgradeBody) {
    const missing: { environmentId: string; reason: string }[] = []
    const chosen = new Map<string, EnvironmentRecord>()
    const explicit = body.ids !== undefined || body.names !== undefined || body.pattern !== undefined
    for (const id of new Set(body.ids ?? [])) {
      const env = await operable(principal, id)
      if (typeof env !== 'string') chosen.set(env._id, env)
      else missing.push({ environmentId: id, reason: env })
    }
    if (body.names !== undefined || body.pattern !== undefined || !explicit) {
      const all = await allOf(principal, 'operate')
      const names = new Set(body.names ?? [])
      const matches = body.pattern ? picomatch(body.pattern) : () => false
      for (const env of all) if (!explicit || names.has(env.name) || matches(env.name)) chosen.set(env._id, env)
      for (const name of names) if (!all.some((e) => e.name === name)) missing.push({ environmentId: name, reason: 'not found' })
    }
    return { candidates: [...chosen.values()], explicit, missing }
  }

  app.post(
    '/upgrade',
    { schema: { body: UpgradeBody, response: { 202: Envelope(UpgradeJobs), 400: ErrorBody, 401: ErrorBody } } },
    async (request, reply) => {
      const { userId } = request.principal
      const body = request.body
      const read = async <T>(what: () => Promise<T>) => {
        try {
          return await what()
        } catch (err) {
          request.log.warn({ err: { message: (err as Error).message } }, 'upgrade: the templates could not be read')
          throw unavailable('The templates cannot be read now (their repository or folder); try again shortly')
        }
      }
      const newest = await read(() => app.templates.load())
      const target = body.to === undefined ? newest : await read(() => app.templates.version(body.to!))
      if (!target) throw validationError([{ field: 'to', message: `names no templates version: ${body.to}` }])

      const { candidates, explicit, missing } = await selection(request.principal, body)
      const skipped: RolloutDoc['skipped'] = [...missing]
      const waves: RolloutDoc['waves'] = (body.waves ?? ['*']).map((pattern) => ({ pattern, status: 'pending', environments: [] }))
      const matchers = waves.map((w) => picomatch(w.pattern))
      for (const { env, pushed, behind, problems } of await statusOf(request, candidates)) {
        const skip = (reason: string) => skipped.push({ environmentId: env._id, name: env.name, reason })
        if (!explicit && !(pushed && isBehind(behind))) continue
        if (env.provider !== 'aws') {
          skip('only provider aws generates a stack')
          continue
        }
        if (problems.length > 0) {
          skip(`stored values the current catalog refuses: ${problems.map((p) => `${p.field}: ${p.reason}`).join('; ')}`)
          continue
        }
        const problem = await pushProblem(env, app.config.push.allowedHosts)
        if (problem) {
          skip(`${problem.field}: ${problem.message}`)
          continue
        }
        const wave = matchers.findIndex((matches) => matches(env.name))
        if (wave < 0) {
          skip('matches no wave')
          continue
        }
        // Pinned environments stay pinned (to the version pushed); a following one is pinned only to a version other than the newest.
        const pin = env.templatesPin || target.commit !== newest.commit ? (body.to ?? target.commit) : undefined
        const entry: RolloutEnvironment = {
          id: env._id,
          name: env.name,
          push: pushed
            ? { format: pushed.format, options: { ...pushed.options } }
            : { format: PUSH_DEFAULTS.format, options: { ...PUSH_DEFAULTS.options } },
          ...(pin && pin !== env.templatesPin && { pinTo: pin }),
        }
        waves[wave].environments.push(entry)
      }
      const created = await rollouts.create({
        userId,
        dryRun: body.dryRun,
        strategy: body.strategy,
        templatesCommit: target.commit,
        preview: body.waves !== undefined,
        waves,
        skipped,
      })
      const started = await rollouts.advance(created, deps)
      const jobs = started.waves.flatMap((w) =>
        w.environments.flatMap((e) => {
          const jobId = e.jobId ?? e.previewJobId
          return jobId ? [{ environmentId: e.id, jobId }] : []
        }),
      )
      const jobOf = new Map(jobs.map((j) => [j.environmentId, j.jobId]))
      for (const env of created.waves.flatMap((w) => w.environments)) {
        const jobId = jobOf.get(env.id)
        const kind = body.dryRun ? 'push-dry-run' : 'upgrade'
        await app.history.record(request, { kind, environment: { id: env.id, name: env.name }, ...(jobId && { jobId }) })
      }
      return reply.code(202).send(ok(request, { jobs, skipped, rolloutId: created._id }))
    },
  )

  app.get(
    '/upgrade/:id',
    { schema: { params: RolloutParams, response: { 200: Envelope(RolloutView), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody } } },
    async (request) => {
      const doc = await rollouts.get(request.principal.userId, request.params.id)
      if (!doc) throw notFound('Rollout not found')
      return ok(request, rolloutView(doc.status === 'running' ? await rollouts.advance(doc, deps) : doc))
    },
  )
}
