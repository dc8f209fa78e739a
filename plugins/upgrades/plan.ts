// What a bulk upgrade does to each selected environment: the wave it joins and the push it starts
// (the last push's format and options; the full repository for one never pushed), or why it is skipped.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import pMap from 'p-map'
import picomatch from 'picomatch'
import { currentTemplatesCommit, pinnedVersions, upgradeStatus } from '@ies/server/jobs/push/push-records'
import { PUSH_DEFAULTS } from '@ies/api/schemas/push'
import { violationLine } from '@ies/api/schemas/policies'
import type { UpgradeBody } from '@ies/api/schemas/upgrades'
import type { EnvironmentRecord } from '../environments/record.ts'
import type { RolloutDoc, RolloutEnvironment } from './rollouts.ts'
import type { Selection } from './selection.ts'

/**
 * Last-push records read at a time. All of a user's at once (thousands of environments) queued as
 * many reads in the driver, where those that waited past its queue timeout failed the request, and
 * held the event loop for seconds while they were created and answered.
 */
const STATUS_READS = 8

const isBehind = (b: { templates: boolean; configuration: boolean }) => b.templates || b.configuration

/** The status of each environment; the templates commit is read once, and only if one was pushed. */
async function statusOf(app: FastifyInstance, request: FastifyRequest, envs: EnvironmentRecord[]) {
  let commit: Promise<string | null> | undefined
  const templatesCommit = () => (commit ??= currentTemplatesCommit(app.templates, request.log))
  const versions = pinnedVersions(app.templates)
  return pMap(envs, async (env) => ({ env, ...(await upgradeStatus(app.jobs.pushing.records, env, templatesCommit, versions)) }), {
    concurrency: STATUS_READS,
  })
}

/** The templates versions an upgrade goes from and to: the newest, and the one `to` names (default the newest). */
export interface Versions {
  newest: string
  target: string
}

/** The environment as at the version the upgrade goes to: pinned to it, or following when it is the newest. */
const atVersion = (env: EnvironmentRecord, { newest, target }: Versions): EnvironmentRecord => ({
  ...env,
  templatesPin: target === newest ? undefined : target,
})

/** The rollout's waves (the body's, else one of all) with their environments, and those skipped. */
export async function planWaves(
  app: FastifyInstance,
  request: FastifyRequest,
  body: UpgradeBody,
  { candidates, explicit, missing }: Selection,
  versions: Versions,
): Promise<Pick<RolloutDoc, 'waves' | 'skipped'>> {
  const skipped: RolloutDoc['skipped'] = [...missing]
  const waves: RolloutDoc['waves'] = (body.waves ?? ['*']).map((pattern) => ({ pattern, status: 'pending', environments: [] }))
  const matchers = waves.map((w) => picomatch(w.pattern))
  // The team of each owner key, for the organisation's rules (a personal environment's is null).
  const teams = new Map((await app.environments.scopes(request.principal)).map((s) => [s.ownerKey, s.team?.name ?? null]))
  const teamOf = (env: EnvironmentRecord) => teams.get(env.userId) ?? null
  for (const { env, pushed, behind } of await statusOf(app, request, candidates)) {
    const skip = (reason: string) => skipped.push({ environmentId: env._id, name: env.name, reason })
    if (!explicit && !(pushed && isBehind(behind))) continue
    // Judged as the upgrade's push will be: after the migrations of the version it goes to, its stored
    // values against that version's catalog (the current one for the newest), by the push rule.
    const atTarget = atVersion(env, versions)
    const problem = await app.pushProblem(atTarget)
    if (problem) {
      skip(problem.message)
      continue
    }
    // What the upgrade's push generates: the configuration after the migrations of the version it goes to.
    const generated = await app.pushedConfiguration(atTarget)
    const { deny } = await app.policies.evaluate(generated as unknown as Record<string, unknown>, { team: teamOf(env), log: request.log })
    if (deny.length > 0) {
      skip(`the organisation's rules refuse it: ${deny.map(violationLine).join('; ')}`)
      continue
    }
    const wave = matchers.findIndex((matches) => matches(env.name))
    if (wave < 0) {
      skip('matches no wave')
      continue
    }
    // Pinned environments stay pinned (to the version pushed); a following one is pinned only to a version other than the newest.
    const pin = env.templatesPin || versions.target !== versions.newest ? (body.to ?? versions.target) : undefined
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
  return { waves, skipped }
}
