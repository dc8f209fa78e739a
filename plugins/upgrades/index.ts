// Upgrade status and bulk upgrades of the caller's environments, under /api/environments like
// plugins/generation and plugins/push (README.md beside this file; docs/updating.md).
//   GET  /environments/upgrades      { data: [{ id, name, lastPush, behind, templatesPin?, problems }] }: pushed and behind
//   POST /environments/upgrade       { ids?, names?, pattern?, waves?, to?, dryRun?, strategy? } -> 202 { data: { jobs, skipped, rolloutId } } (upgrade.ts)
//   GET  /environments/upgrade/:id   the rollout: its waves, each environment's jobs and outcome
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import pMap from 'p-map'
import { ArrayEnvelope, Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { notFound } from '@ies/server/core/errors'
import { RolloutParams, RolloutView, Upgradable } from '@ies/api/schemas/upgrades'
import { setPin } from './pins.ts'
import { Rollouts, type RolloutDeps, type RolloutDoc } from './rollouts.ts'
import { ownerKeys } from './selection.ts'
import { upgradeRoute } from './upgrade.ts'
import { upgradeStatusOf, type StatusSources } from './upgrade-status.ts'

export const autoPrefix = '/environments'

/** The start of the Warning a status answered before all its lines were built carries (then: how many are pending). */
export const STATUS_BUILDING_WARNING = '199 - "upgrade status incomplete:'

/** How often a replica that runs jobs moves the running rollouts on. */
const ROLLOUT_TICK_MS = 1000

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
      environments: w.environments.map(({ push: _push, confirmDestroy: _confirmed, ...e }) => e),
    })),
    skipped: doc.skipped,
    ...(doc.stopped && { stopped: doc.stopped }),
    ...(doc.plan && { plan: true }),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  }
}

/** On a replica that runs jobs, a timer moves the running rollouts on (any replica may; each step is claimed). */
function moveRolloutsOn(app: FastifyInstance, rollouts: Rollouts, deps: RolloutDeps) {
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
  app.addHook('onReady', async () => {
    timer = setInterval(() => void tick(), ROLLOUT_TICK_MS)
    timer.unref()
  })
  app.addHook('onClose', async () => clearInterval(timer))
}

const upgrades: FastifyPluginAsyncTypebox = async (app) => {
  const environments = app.environments
  const records = app.jobs.pushing.records
  const rollouts = new Rollouts(app.mongo.db, app.config.jobs.lockLifetimeMs)
  // A deleted environment's line in the upgrade status goes with the next read (upgrade-status.ts).
  environments.onEnvironmentDeleted((env) => records.removeForEnvironment(env._id))

  const deps: RolloutDeps = {
    enqueuePush: async (userId, environmentId, params) => {
      const user = await app.users.get(userId).catch(() => null)
      return (await app.approvals.enqueuePush({ userId, username: user?.username ?? userId }, environmentId, params, app.log))._id
    },
    job: (userId, jobId) => app.jobs.store.get(userId, jobId),
    setPin: (_userId, id, pin) => setPin(environments, id, pin),
  }
  if (app.config.jobs.process) moveRolloutsOn(app, rollouts, deps)
  // Rollouts are kept as long as jobs are: those that ended before the age limit go with each retention sweep.
  app.jobs.retain('rollouts', (cutoff) => rollouts.prune(cutoff))

  const statusSources: StatusSources = {
    environments,
    store: records.status,
    templates: app.templates,
    catalog: async (log) => {
      const view = await app.catalog.view(log, { unavailable: 'upgrades: catalog unavailable; stored values not checked' })
      return view && { view, commit: view.commit }
    },
  }

  app.get('/upgrades', { schema: { response: { 200: ArrayEnvelope(Upgradable), 401: ErrorBody } } }, async (request, reply) => {
    // One status document per owner the caller may read: their own, and each of their teams'.
    const owners = await ownerKeys(environments, request.principal, 'read')
    const statuses = await pMap(owners, (owner) => upgradeStatusOf(statusSources, owner, request.log), { concurrency: 2 })
    const pending = statuses.reduce((n, s) => n + s.pending, 0)
    // Lines still being built (a first read, a new catalog): said in a Warning, as the catalog says a stale answer.
    if (pending > 0)
      reply.header('Warning', `${STATUS_BUILDING_WARNING} ${pending} environments are still being checked; read again shortly"`)
    return ok(
      request,
      statuses.flatMap((s) => s.items),
    )
  })

  await app.register(upgradeRoute, { rollouts, deps })

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

export default upgrades
