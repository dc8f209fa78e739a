// An environment's drift check in words (docs/plans.md, "Drift"): its schedule, what a scheduled
// check still needs, and the last check's outcome as GET /environments/:id serves it (`drift`).
import type { Environment } from '../api/types.ts'

type LastDrift = NonNullable<Environment['drift']>

/** "Every 24 hours", "Every hour", or "Only when asked" (no schedule). */
export function driftScheduleWords(hours: number | undefined): string {
  if (!hours) return 'Only when asked'
  return hours === 1 ? 'Every hour' : `Every ${hours} hours`
}

/** What a scheduled check needs and the environment lacks (the schedule passes it over until it has them). */
export function driftCheckNeeds(env: { bucket?: string; gitUrl?: string; credentialId?: string }): string[] {
  return [
    ...(env.bucket ? [] : ['a state bucket']),
    ...(env.credentialId ? [] : ['a cloud credential']),
    ...(env.gitUrl ? [] : ['a Git repository']),
  ]
}

/** The last check's outcome: whether anything drifted, and each resource that did with its attributes. */
export function lastDriftWords(drift: LastDrift): { summary: string; resources: string[] } {
  const n = drift.drifted.length
  return {
    summary:
      n === 0
        ? 'No drift: the cloud matches the Terraform state'
        : `${n} resource${n === 1 ? '' : 's'} differ${n === 1 ? 's' : ''} from the state`,
    resources: drift.drifted.map((d) => (d.attributes.length > 0 ? `${d.address} (${d.attributes.join(', ')})` : d.address)),
  }
}

/** Why "Check for drift now" was refused, in words, and what to set: the wizard step and its field. */
export interface DriftRefusal {
  reason: string
  step: 'State backend' | 'Git repository' | 'Cloud credential'
  /** What to do at that step, naming the field: "set the Bucket name". */
  todo: string
}

const GIT_FIELDS: Record<string, string> = {
  gitRepository: 'set the Repository URL',
  'gitRepository.url': 'set a Repository URL the server may push to',
  'gitRepository.deployKey': 'enter the Deploy key or access token',
}

/**
 * The refusal of POST /environments/:id/drift (docs/plans.md): 409 PLAN_UNAVAILABLE when there is no
 * state bucket or no cloud credential (the message names the field), 400 with a `gitRepository` field
 * when the environment cannot be pushed. Null for any other error: it is said as it comes.
 */
export function driftRefusal(error: {
  status: number
  code: string
  message: string
  fieldErrors: Record<string, string>
}): DriftRefusal | null {
  if (error.status === 409 && error.code === 'PLAN_UNAVAILABLE') {
    if (error.message.includes('cloudCredentialId'))
      return {
        reason: 'This environment has no cloud credential, so IES cannot read what is in the cloud.',
        step: 'Cloud credential',
        todo: 'choose a credential',
      }
    return {
      reason: 'This environment has no state bucket, so there is no Terraform state to compare the cloud with.',
      step: 'State backend',
      todo: 'set the Bucket name',
    }
  }
  if (error.status !== 400) return null
  const field = Object.keys(error.fieldErrors).find((f) => f in GIT_FIELDS)
  if (!field) return null
  return {
    reason: `The drift check reads the branch you push to, and this environment cannot be pushed: ${error.fieldErrors[field]}.`,
    step: 'Git repository',
    todo: GIT_FIELDS[field],
  }
}
