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
