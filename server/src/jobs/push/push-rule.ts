// Whether an environment can be pushed, and from which generation: the one rule of the push route
// (a push and a dry run alike), the plans and the bulk upgrade (through `app.pushProblem`,
// plugins/push/service.ts), and of the push job (queue/push-work.ts), which asks again at its turn
// with the environment as migrated and its deploy key read. An environment is pushable when its
// provider generates a stack (aws), it has a Git repository at an allowed destination and a deploy
// key (an access token: an SSH key cannot authenticate an HTTPS push), and its templates accept its
// stored values once its pending migrations have moved them (`RefusedValues`,
// plugins/push/push-problem.ts). Each problem has one message, the field a refused request names
// (`pushRefusal`: a 400 on it, or a 422) and the code a push job fails with (`pushFailure`).
import { AppError, fieldError, type FieldError } from '../../core/errors.ts'
import { JobFailure } from '../../core/job-failure.ts'
import { MIGRATION_FAILED } from '../generation/migrations.ts'
import type { JobRecord } from '../queue/store.ts'
import { isPemPrivateKey, PEM_OVER_HTTPS_MESSAGE } from './deploy-key.ts'
import { checkDestination, DESTINATION_REFUSED, DestinationError, urlProblem } from './destination.ts'

/** What the rule reads of an environment (a stored environment record has all of it). */
export interface PushableEnvironment {
  provider: string
  gitRepository?: { url?: string }
  /** The stored (sealed) key, or the key as read (decrypted: the push job); a read key is checked to be no SSH key. */
  deployKey?: unknown
}

export interface PushProblem {
  /** The field a refused request names. */
  field: string
  /** The code a push job that meets the problem fails with. */
  code: string
  /** One sentence, for the request's answer and the job's error alike. */
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
/** Why another provider's environment is neither generated nor pushed (the generation route says it too). */
export const PROVIDER_MESSAGE = 'Only provider aws generates a stack'

/** The problems of the rule that name no value of the caller's. */
export const PUSH_PROBLEMS = {
  provider: { field: 'provider', code: 'PROVIDER_NOT_SUPPORTED', message: PROVIDER_MESSAGE },
  repository: { field: 'gitRepository', code: 'NO_GIT_REPOSITORY', message: 'The environment has no Git repository to push to' },
  deployKey: { field: 'gitRepository.deployKey', code: 'NO_DEPLOY_KEY', message: 'The environment has no deploy key to push with' },
  sshKey: { field: 'gitRepository.deployKey', code: 'DEPLOY_KEY_NOT_USABLE', message: PEM_OVER_HTTPS_MESSAGE },
  generation: {
    field: 'generationJobId',
    code: 'GENERATION_NOT_USABLE',
    message: 'The generation job given is not a successful generation of this environment',
  },
} as const satisfies Record<string, PushProblem>

/** Why the environment cannot be pushed: its first problem (a 400, or a 422 for refused values; a push job's failure); null when it can. */
export async function pushProblem<E extends PushableEnvironment>(
  env: E,
  allowedHosts: readonly string[],
  refusedValues?: RefusedValues<E>,
): Promise<PushProblem | null> {
  if (env.provider !== PUSHED_PROVIDER) return PUSH_PROBLEMS.provider
  const url = env.gitRepository?.url
  if (!url) return PUSH_PROBLEMS.repository
  const problem = urlProblem(url, allowedHosts)
  if (problem) return { field: 'gitRepository.url', code: DESTINATION_REFUSED, message: problem }
  if (!env.deployKey) return PUSH_PROBLEMS.deployKey
  if (typeof env.deployKey === 'string' && isPemPrivateKey(env.deployKey)) return PUSH_PROBLEMS.sshKey
  const refused = (await refusedValues?.(env)) ?? []
  if (refused.length > 0) {
    const [first] = refused
    const more = refused.length > 1 ? ` (and ${refused.length - 1} more)` : ''
    const message = `The templates refuse the stored value of ${first.field}: ${first.message}${more}. Change the value, then push again; nothing was pushed.`
    return { field: first.field, code: MIGRATION_FAILED, message, refused }
  }
  try {
    await checkDestination(url, allowedHosts)
  } catch (err) {
    if (err instanceof DestinationError) return { field: 'gitRepository.url', code: DESTINATION_REFUSED, message: err.message }
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

/** The failure of a push job that meets the problem: its code and message. */
export function pushFailure(problem: PushProblem): JobFailure {
  return new JobFailure(problem.code, problem.message, problem.refused && { problems: problem.refused })
}

/**
 * Whether a push of the environment may take its files from the job (`generationJobId`): a
 * successful generation of that same environment, whose archive is kept (else PUSH_PROBLEMS.generation).
 */
export function isUsableGeneration(job: JobRecord | null | undefined, environmentId: string): job is JobRecord {
  return !!job && job.type === 'generate' && job.environmentId === environmentId && job.status === 'succeeded' && !!job.archiveId
}

/**
 * The push job's check at its turn (the environment may have changed since the push was asked
 * for), on the environment as migrated and its deploy key as read: the rule's first problem fails
 * the job. The repository the push goes to (its addresses checked again as it connects) and the key.
 */
export async function checkPushJob<R extends { url?: string }>(
  env: { provider: string; gitRepository?: R },
  deployKey: string | null,
  allowedHosts: readonly string[],
): Promise<{ repository: R & { url: string }; deployKey: string }> {
  const problem = await pushProblem({ ...env, deployKey }, allowedHosts)
  if (problem) throw pushFailure(problem)
  return { repository: env.gitRepository as R & { url: string }, deployKey: deployKey as string }
}
