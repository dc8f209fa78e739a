// The rules' `input.plan` (docs/policies.md, "On the plan"): each resource change of a push's plan
// with the names of the attributes that change, never a value (a value may be sensitive).
import type { PlanResult } from '@ies/api/schemas/plans'

/** One resource change as the rules read it (`input.plan.resources[_]`). */
export interface PlanChangeInput {
  address: string
  type: string
  action: string
  /** The names of the top-level attributes that change. */
  attributes: string[]
  holdsData: boolean
}

/** The rules' `input.plan`. */
export interface PlanInput {
  resources: PlanChangeInput[]
}

export function planInput(plan: Pick<PlanResult, 'resources'>): PlanInput {
  return {
    resources: plan.resources.map((r) => ({
      address: r.address,
      type: r.type,
      action: r.action,
      attributes: r.attributes.map((a) => a.name),
      holdsData: r.holdsData,
    })),
  }
}
