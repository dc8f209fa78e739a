// What makes an environment pushable at all: one rule for POST /:id/push and the bulk upgrade.
import { checkDestination, DestinationError, urlProblem } from '@ies/server/jobs/push/destination'
import type { EnvironmentRecord } from '../environments/record.ts'

export interface PushProblem {
  field: string
  message: string
}

/** Why the environment cannot be pushed, as the field and sentence of a 400; null when it can. */
export async function pushProblem(env: EnvironmentRecord, allowedHosts: readonly string[]): Promise<PushProblem | null> {
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
