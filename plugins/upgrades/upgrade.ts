// POST /environments/upgrade: one push per selected environment, from one templates version, in
// waves (README.md beside this file; docs/updating.md). Without `waves` the pushes
// start at once and each merges on its own (a conflict fails that job alone); with `waves` the
// rollout (rollouts.ts) previews and pushes wave after wave and stops at the first conflict or failed push.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { unavailable, validationError } from '@ies/server/core/errors'
import { UpgradeBody, UpgradeJobs } from '@ies/api/schemas/upgrades'
import { planWaves, type Versions } from './plan.ts'
import type { RolloutDeps, RolloutDoc, Rollouts } from './rollouts.ts'
import { selection } from './selection.ts'

/** The newest templates commit and the one `to` names; 503 when the templates cannot be read, 400 when `to` names none. */
async function versionsOf(app: FastifyInstance, request: FastifyRequest, to: string | undefined): Promise<Versions> {
  const read = async <T>(what: () => Promise<T>) => {
    try {
      return await what()
    } catch (err) {
      request.log.warn({ err: { message: (err as Error).message } }, 'upgrade: the templates could not be read')
      throw unavailable('The templates cannot be read now (their repository or folder); try again shortly')
    }
  }
  const newest = await read(() => app.templates.load())
  const target = to === undefined ? newest : await read(() => app.templates.version(to))
  if (!target) throw validationError([{ field: 'to', message: `names no templates version: ${to}` }])
  return { newest: newest.commit, target: target.commit }
}

/**
 * Gives each environment its confirmDestroy (keyed by its id or name); 400 on a key that names no
 * environment the upgrade pushes (a confirmation must not be silently lost).
 */
function confirmations(body: UpgradeBody, waves: RolloutDoc['waves']): void {
  const given = body.confirmDestroy ?? {}
  const used = new Set<string>()
  for (const e of waves.flatMap((w) => w.environments)) {
    const key = e.id in given ? e.id : e.name in given ? e.name : undefined
    if (key === undefined) continue
    used.add(key)
    e.confirmDestroy = [...given[key]!]
  }
  const unknown = Object.keys(given).filter((k) => !used.has(k))
  if (unknown.length > 0)
    throw validationError(unknown.map((k) => ({ field: `confirmDestroy.${k}`, message: 'names no environment this upgrade pushes' })))
}

/** The jobs the rollout's first step started, by environment. */
const startedJobs = (doc: RolloutDoc) =>
  doc.waves.flatMap((w) =>
    w.environments.flatMap((e) => {
      const jobId = e.jobId ?? e.previewJobId
      return jobId ? [{ environmentId: e.id, jobId }] : []
    }),
  )

export const upgradeRoute: FastifyPluginAsyncTypebox<{ rollouts: Rollouts; deps: RolloutDeps }> = async (app, { rollouts, deps }) => {
  app.post(
    '/upgrade',
    { schema: { body: UpgradeBody, response: { 202: Envelope(UpgradeJobs), 400: ErrorBody, 401: ErrorBody } } },
    async (request, reply) => {
      const body = request.body
      const versions = await versionsOf(app, request, body.to)
      const selected = await selection(app.environments, request.principal, body)
      const { waves, skipped } = await planWaves(app, request, body, selected, versions)
      confirmations(body, waves)
      const created = await rollouts.create({
        userId: request.principal.userId,
        dryRun: body.dryRun,
        strategy: body.strategy,
        templatesCommit: versions.target,
        preview: body.waves !== undefined,
        ...(body.plan && { plan: true }),
        waves,
        skipped,
      })
      const jobs = startedJobs(await rollouts.advance(created, deps))
      const jobOf = new Map(jobs.map((j) => [j.environmentId, j.jobId]))
      for (const env of created.waves.flatMap((w) => w.environments)) {
        const jobId = jobOf.get(env.id)
        const kind = body.dryRun ? 'push-dry-run' : 'upgrade'
        await app.history.record(request, { kind, environment: { id: env.id, name: env.name }, ...(jobId && { jobId }) })
      }
      return reply.code(202).send(ok(request, { jobs, skipped, rolloutId: created._id }))
    },
  )
}
