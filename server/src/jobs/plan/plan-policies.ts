// The organisation's rules on a push's plan (docs/policies.md, "On the plan"): the plan's resource
// changes become the rules' `input.plan`, and the environment's owner (EnvironmentAccess.judgePlan)
// evaluates them with the environment as stored. A `deny` refuses the push before anything is written
// (POLICY_DENIED, each denial naming its rule and the resource address); the warnings are returned
// with the job. The input: plan-input.ts.
import { OPEN_CODES } from '@ies/api/errors'
import { deniedDetails, violationLine, type PolicyResult } from '@ies/api/schemas/policies'
import { JobFailure } from '../../core/job-failure.ts'
import type { JobContext } from '../queue/job-context.ts'
import type { JobRecord } from '../queue/store.ts'
import { planInput } from './plan-input.ts'
import type { PlanOutcome } from './plan-run.ts'

/** Refuses the push on a `deny` of the rules on its plan; the warnings' lines otherwise (none without rules). */
export async function judgePlan(ctx: JobContext, record: JobRecord, plan: PlanOutcome): Promise<string[]> {
  const judge = ctx.environments.judgePlan
  if (!judge) return []
  const { deny, warn }: PolicyResult = await judge(record.userId, record.environmentId, planInput(plan))
  if (deny.length > 0) {
    throw new JobFailure(
      OPEN_CODES.policyDenied,
      `The organisation's rules refuse the push's plan; nothing was pushed: ${deny.map(violationLine).join('; ')}`,
      { violations: deniedDetails(deny) },
    )
  }
  return warn.map((v) => `rule ${violationLine(v)}`)
}
