// Whether an environment can be pushed, and from which generation: the one rule of the push route
// (a push and a dry run alike), the plans and the bulk upgrade (through `app.pushProblem`,
// plugins/push/service.ts), and of the push job (queue/push-work.ts), which asks again at its turn
// with the environment as migrated and its deploy key read. An environment is pushable when its
// provider generates a stack (aws), it has a Git repository at an allowed destination and a deploy
// key, and its templates accept its stored values once its pending migrations have moved them
// (`RefusedValues`, plugins/push/push-problem.ts).
import { AppError, fieldError, type FieldError } from '../../core/errors.ts'
import { JobFailure } from '../../core/job-failure.ts'
import { MIGRATION_FAILED } from '../generation/migrations.ts'
import type { JobRecord } from '../queue/store.ts'
import { isPemPrivateKey, PEM_OVER_HTTPS_MESSAGE } from './deploy-key.ts'
import { checkDestination, DestinationError, urlProblem } from './destination.ts'

/** What the rule reads of an environment (a stored environment record has all of it). */
export interface PushableEnvironment {
  provider: string
  gitRepository?: { url?: string }
  deployKey?: unknown
}

export interface PushProblem {
  field: string
  message: string
  /** The stored values the templates refuse (MIGRATION_FAILED); absent for the other problems (VALIDATION_ERROR). */
  refused?: FieldError[]
}

/**
 * The stored values of an environment that its templates refuse after its pending migrations (the
 * catalog and migrations of its templates version: its pin, else the newest); none when they cannot be judged.
 */
export type RefusedValues<E> = (env: E) => Promise<FieldError[]>

/** The provider whose environments generate a stack. */
export const PUSHED_PROVIDER = 'aws'
export const PROVIDER_MESSAGE = 'only provider aws generates a stack'

/** Why the environment cannot be pushed, as the field and sentence of a 400 (or a 422 for refused values); null when it can. */
export async function pushProblem<E extends PushableEnvironment>(
  env: E,
  allowedHosts: readonly string[],
  refusedValues?: RefusedValues<E>,
): Promise<PushProblem | null> {
  if (env.provider !== PUSHED_PROVIDER) return { field: 'provider', message: PROVIDER_MESSAGE }
  const url = env.gitRepository?.url
  if (!url) return { field: 'gitRepository', message: 'the environment has no Git repository to push to' }
  const problem = urlProblem(url, allowedHosts)
  if (problem) return { field: 'gitRepository.url', message: problem }
  if (!env.deployKey) return { field: 'gitRepository.deployKey', message: 'the environment has no deploy key to push with' }
  const refused = (await refusedValues?.(env)) ?? []
  if (refused.length > 0) {
    const [first] = refused
    const more = refused.length > 1 ? ` (and ${refused.length - 1} more)` : ''
    const message = `The templates refuse the stored value of ${first.field}: ${first.message}${more}. Change the value, then push again; nothing was pushed.`
    return { field: first.field, message, refused }
  }
  try {
    await checkDestination(url, allowedHosts)
  } catch (err) {
    if (err instanceof DestinationError) return { field: 'gitRepository.url', message: err.message }
    throw err
  }
  return null
}

/**
 * The error a refused push answers: 422 MIGRATION_FAILED with every refused field in
 * `details.problems` (as a push job that no migration can move fails), else 400 on the field.
 */
export function pushRefusal(problem: PushProblem): AppError {
  if (problem.refused) return new AppError(422, MIGRATION_FAILED, problem.message, { problems: problem.refused })
  return fieldError(problem.field, problem.message)
}

/**
 * Whether a push of the environment may take its files from the job (`generationJobId`): a
 * successful generation of that same environment, whose archive is kept.
 */
export function isUsableGeneration(job: JobRecord | null | undefined, environmentId: string): job is JobRecord {
  return !!job && job.type === 'generate' && job.environmentId === environmentId && job.status === 'succeeded' && !!job.archiveId
}

/**
 * The push job's repository, at its turn (the environment may have changed since the push was
 * asked for): NO_GIT_REPOSITORY without one. Its destination is checked again before the push connects.
 */
export function jobRepository<R extends { url: string }>(env: { gitRepository?: R }): R {
  const repository = env.gitRepository
  if (!repository?.url) throw new JobFailure('NO_GIT_REPOSITORY', 'The environment has no Git repository')
  return repository
}

/** The push job's deploy key, as read at its turn: NO_DEPLOY_KEY without one, DEPLOY_KEY_NOT_USABLE for an SSH key (pushes use HTTPS). */
export function checkJobDeployKey(deployKey: string | null): asserts deployKey is string {
  if (!deployKey) throw new JobFailure('NO_DEPLOY_KEY', 'The environment has no deploy key to push with')
  if (isPemPrivateKey(deployKey)) throw new JobFailure('DEPLOY_KEY_NOT_USABLE', PEM_OVER_HTTPS_MESSAGE)
}
