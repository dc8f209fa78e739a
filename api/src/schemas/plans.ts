// POST /api/environments/:id/plan and /drift: the Terraform plan of the tree a push would write (or,
// for drift, of the branch head's tree, refresh only), as the API serves it in a job's result, in a
// push dry run's `plan`, and to policies that judge a plan (PlanResult is the one typed shape).
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../string-enum.ts'
import { PLAN_ACTIONS } from '../values.ts'

export { PLAN_ACTIONS, type PlanAction } from '../values.ts'

/** The codes a plan, a drift check or the push guard fails with (a job's `error.code`). */
export const PLAN_CODES = {
  /** The environment has no state backend or no cloud credential: nothing to plan against. */
  unavailable: 'PLAN_UNAVAILABLE',
  /** TERRAFORM_BIN could not be started. */
  terraformMissing: 'TERRAFORM_UNAVAILABLE',
  /** The cloud refused the environment's credential. */
  credentialRefused: 'CLOUD_CREDENTIAL_REFUSED',
  /** `terraform init` failed (the state backend, the providers). */
  initFailed: 'PLAN_INIT_FAILED',
  /** `terraform plan` failed (a provider error, an unreadable state). */
  failed: 'PLAN_FAILED',
  /** Terraform ran longer than PLAN_TIMEOUT_MS or wrote more than PLAN_OUTPUT_CAP_BYTES. */
  limit: 'PLAN_LIMIT_EXCEEDED',
  /** A push would replace or destroy data-holding resources its request did not confirm. */
  wouldDestroyData: 'PUSH_WOULD_DESTROY_DATA',
} as const

export const PlanQuery = Type.Object({
  wait: Type.Boolean({
    default: false,
    description: 'Wait for the job (up to JOBS_WAIT_TIMEOUT_MS) and answer 200 with the finished job.',
  }),
})

export const PlanAttribute = Type.Object({
  name: Type.String({ description: 'The top-level attribute (instance_class).' }),
  before: Type.Optional(
    Type.String({ description: 'The value before, as JSON; "(sensitive)" when Terraform marks it so; cut at 200 characters.' }),
  ),
  after: Type.Optional(
    Type.String({ description: 'The value after, as JSON; "(known after apply)", "(sensitive)"; cut at 200 characters.' }),
  ),
})
export type PlanAttribute = Static<typeof PlanAttribute>

export const PlanResource = Type.Object({
  address: Type.String({ description: 'module.rds[0].aws_db_instance.this' }),
  type: Type.String(),
  action: StringEnum(PLAN_ACTIONS),
  attributes: Type.Array(PlanAttribute, { description: 'The attributes that change (for a replacement: those that force it first).' }),
  holdsData: Type.Boolean({ description: "The resource's type holds data or identity (the templates' data-holders.json)." }),
  dataKind: Type.Optional(Type.String({ description: 'What it holds, in words (database, bucket).' })),
  reason: Type.Optional(Type.String({ description: "Terraform's action reason (replace_because_cannot_update)." })),
})
export type PlanResource = Static<typeof PlanResource>

export const PlanSummary = Type.Object(
  {
    add: Type.Integer(),
    change: Type.Integer(),
    destroy: Type.Integer(),
    replace: Type.Integer({ description: 'Replacements, counted in add and destroy too (as Terraform counts them).' }),
    noOp: Type.Integer(),
  },
  { description: 'The counts of Terraform\'s "Plan: <add> to add, <change> to change, <destroy> to destroy." line.' },
)
export type PlanSummary = Static<typeof PlanSummary>

export const PlanResult = Type.Object({
  kind: StringEnum(['plan', 'drift'] as const, { description: 'plan: the tree a push would write; drift: the branch head, refresh only.' }),
  branch: Type.String(),
  templatesCommit: Type.String(),
  summary: PlanSummary,
  resources: Type.Array(PlanResource, {
    description: 'Each resource that changes (drift: each that differs from the state), data-holding ones first, then by address.',
  }),
  dataAtRisk: Type.Array(Type.String(), { description: 'Addresses of data-holding resources the plan replaces or destroys.' }),
  terraformVersion: Type.String(),
  seconds: Type.Number({ description: 'How long Terraform ran (init, plan, show).' }),
})
export type PlanResult = Static<typeof PlanResult>

/** A plan that could not be made, in a push dry run's `plan` (the push itself works as without one). */
export const PlanUnavailable = Type.Object({
  unavailable: Type.String({ description: 'Why there is no plan (no state backend, no cloud credential).' }),
})
export type PlanUnavailable = Static<typeof PlanUnavailable>

/** The one-line summary, as history and the CLI print it: "2 to add, 1 to change, 0 to destroy (1 replaced)". */
export function planSummaryLine(s: PlanSummary): string {
  return `${s.add} to add, ${s.change} to change, ${s.destroy} to destroy${s.replace > 0 ? ` (${s.replace} replaced)` : ''}`
}

/** An environment's last drift check, as GET /api/environments/:id serves it (`drift`; null before the first). */
export const LastDrift = Type.Object(
  {
    jobId: Type.String(),
    checkedAt: Type.String({ format: 'date-time' }),
    drifted: Type.Array(Type.Object({ address: Type.String(), attributes: Type.Array(Type.String()) }), {
      description: 'Each resource whose real state differed from the Terraform state, and the attributes that did; empty: no drift.',
    }),
  },
  { description: 'The last drift check (POST /api/environments/:id/drift): the branch against the cloud.' },
)
export type LastDrift = Static<typeof LastDrift>
