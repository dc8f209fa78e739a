// Whether an environment can be planned or checked for drift, one rule for the routes and the drift
// schedule: pushable (the push rule, `app.pushProblem`), with a state backend to plan against and a
// cloud credential to plan with.
import type { FastifyInstance } from 'fastify'
import { AppError, fieldError } from '@ies/server/core/errors'
import { PLAN_CODES } from '@ies/api/schemas/plans'
import type { EnvironmentRecord } from '../environments/record.ts'

/** Why the environment cannot be planned, as the error a request answers; null when it can. */
export async function planRefusal(app: FastifyInstance, env: EnvironmentRecord): Promise<AppError | null> {
  const problem = await app.pushProblem(env)
  if (problem) return fieldError(problem.field, problem.message)
  if (!env.terraformBackend?.bucket)
    return new AppError(
      409,
      PLAN_CODES.unavailable,
      'The environment has no state backend (terraformBackend.bucket): there is no state to plan against.',
    )
  if (!env.cloudCredentialId)
    return new AppError(409, PLAN_CODES.unavailable, 'The environment has no cloud credential (cloudCredentialId) to plan with.')
  return null
}
