// Moving an environment's templates pin once its upgrade's push succeeded (rollouts.ts calls it).
import type { EnvironmentInput } from '@ies/api/schemas/environments'
import type { EnvironmentRepository } from '../environments/repository.ts'

/** How often moving a pin is tried against concurrent writes of the environment. */
const PIN_ATTEMPTS = 4

/** Sets the environment's pin, re-read and retried when another write came first. */
export async function setPin(environments: EnvironmentRepository, id: string, pin: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    // Under its owner (the requester's or a team's): the rollout's request checked the access.
    const found = await environments.forJob(id)
    const env = found && (await environments.get(found.userId, id))
    if (!env || env.templatesPin === pin) return
    const { _id, userId: _owner, deployKey: _key, status: _s, stateKeyScope: _k, version: _v, createdAt: _c, updatedAt: _u, ...input } = env
    try {
      await environments.replace(env, { ...input, templatesPin: pin } as EnvironmentInput, 'keep')
      return
    } catch (err) {
      if (attempt >= PIN_ATTEMPTS) throw err
    }
  }
}
