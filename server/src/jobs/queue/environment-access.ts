// How the jobs read and update environments: an interface the job engine declares and the
// environments plugin satisfies (the engine knows no plugin).
import type { Migration } from '@ies/processor-lib/migrations/index'
import type { PolicyResult } from '@ies/api/schemas/policies'
import type { JobEnvironment } from '../generation/transform.ts'
import type { PlanInput } from '../plan/plan-input.ts'

/** What the history keeps of a plan or drift check: its summary line, or the error it failed with. */
export type PlanOutcomeRecord = { plan: string } | { error: { code: string; message: string } }

export interface EnvironmentAccess {
  get(userId: string, id: string): Promise<JobEnvironment | null>
  /**
   * The environment's cloud credential, decrypted (null: none assigned); only a plan asks for it
   * (jobs/plan/push-plan.ts), and hands it to the Terraform process alone.
   */
  getCloudCredential?(userId: string, id: string): Promise<{ provider: string; credentials: Record<string, unknown> } | null>
  /** Records a finished plan or drift check in the environment's history: its summary line, or its error (redacted). */
  planned?(userId: string, id: string, jobId: string, kind: 'plan' | 'drift', outcome: PlanOutcomeRecord): Promise<void>
  /** The organisation's rules on the environment as stored with a push's plan (`input.plan`; plan/plan-policies.ts). */
  judgePlan?(userId: string, id: string, plan: PlanInput): Promise<PolicyResult>
  /** The decrypted deploy key; only the push job asks for it. */
  getDeployKey(userId: string, id: string): Promise<string | null>
  /**
   * Stores the configuration the migrations the environment has not run make of it (a versioned
   * write of the stored record, like any change) and their ids; only a push that pushed asks.
   */
  storeMigrated?(userId: string, id: string, migrations: readonly Migration[], jobId?: string): Promise<void>
}
