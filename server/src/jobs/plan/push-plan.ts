// The plan of a push job (push-work.ts), made from the trees its merge computes (push.ts onMerge):
//   - a `plan` job: the tree the push would write; a `drift` job: the branch head's tree, refresh only
//     (both are push dry runs underneath; no state backend or credential: PLAN_UNAVAILABLE);
//   - a push dry run with `plan: true`: its result carries the plan (or why there is none);
//   - a push: the guard. A plan that replaces or destroys data-holding resources refuses the push
//     (PUSH_WOULD_DESTROY_DATA, naming them) unless `confirmDestroy` names exactly those addresses.
//     Without a state backend or credential the push works as it always did; a plan that cannot be
//     made (no Terraform, a provider error) lets the push through with a warning saying so.
import type { DryRunResult, PushJobResult } from '@ies/api/schemas/push'
import { PLAN_CODES, planSummaryLine, type PlanResult } from '@ies/api/schemas/plans'
import { JobFailure } from '../../core/job-failure.ts'
import type { JobEnvironment } from '../generation/transform.ts'
import type { LifecyclePushParams } from '../push/push-job.ts'
import type { PushRequest } from '../push/push.ts'
import type { JobContext } from '../queue/job-context.ts'
import type { JobError, JobRecord } from '../queue/store.ts'
import { cloudSecrets, runPlan, type PlanKind, type PlanOutcome, type TreeFile } from './plan-run.ts'
import type { CloudAccess } from './terraform.ts'
import { judgePlan } from './plan-policies.ts'

export interface Planning {
  onMerge?: PushRequest['onMerge']
  /** What the job's error and logs must not show: the credential's secret parts. */
  secrets: string[]
  /** The job's result: a plan job's plan, a dry run with its plan, a push with its plan's summary or warning. */
  finish(result: PushJobResult | DryRunResult): Promise<object>
}

const NO_PLANNING: Planning = { secrets: [], finish: async (result) => result }

/** The cloud access a plan of the environment runs with, or why there is none. */
async function cloudAccessOf(
  ctx: JobContext,
  record: JobRecord,
  env: JobEnvironment,
): Promise<{ cloud: CloudAccess } | { unavailable: string }> {
  if (!env.terraformBackend?.bucket) {
    return { unavailable: 'The environment has no state backend (terraformBackend.bucket): there is no state to plan against.' }
  }
  const stored = await ctx.environments.getCloudCredential?.(record.userId, record.environmentId)
  if (!stored) return { unavailable: 'The environment has no cloud credential (cloudCredentialId) to plan with.' }
  if (stored.provider !== 'aws')
    return { unavailable: `The environment's cloud credential is for ${stored.provider}; a plan needs an aws one.` }
  const keys = stored.credentials as { accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  const cloud: CloudAccess = {
    accessKeyId: keys.accessKeyId,
    secretAccessKey: keys.secretAccessKey,
    region: env.region,
    ...(keys.sessionToken && { sessionToken: keys.sessionToken }),
    ...(ctx.config.cloud.awsEndpointUrl && { endpointUrl: ctx.config.cloud.awsEndpointUrl }),
  }
  return { cloud }
}

/** Refuses a push whose plan puts data at risk, unless the request confirmed exactly those addresses. */
export function guard(atRisk: readonly string[], confirmed: readonly string[] = []): void {
  if (atRisk.length === 0) return
  const exact = confirmed.length === atRisk.length && atRisk.every((a) => confirmed.includes(a))
  if (exact) return
  throw new JobFailure(
    PLAN_CODES.wouldDestroyData,
    `The push would replace or destroy ${atRisk.length} resource(s) holding data: ${atRisk.join(', ')}. Nothing was pushed; ` +
      'to push anyway, confirm exactly these addresses (confirmDestroy; ies push --confirm-destroy ADDRESS).',
    { addresses: [...atRisk], confirmed: [...confirmed] },
  )
}

/** The regular files of a tree, each read when written. */
function filesOf(tree: Parameters<NonNullable<PushRequest['onMerge']>>[0]['merged'], read: (oid: string) => Promise<Buffer>): TreeFile[] {
  return [...tree]
    .filter(([path, entry]) => path.startsWith('terraform/') && (entry.mode === '100644' || entry.mode === '100755'))
    .map(([path, entry]) => ({ path, read: () => read(entry.oid) }))
}

export async function pushPlanning(ctx: JobContext, record: JobRecord, env: JobEnvironment, templatesVersion?: string): Promise<Planning> {
  const params = record.params as LifecyclePushParams
  const standalone = record.type === 'plan' || record.type === 'drift'
  const kind: PlanKind = record.type === 'drift' ? 'drift' : 'plan'
  const dryRun = params.dryRun === true
  if (!standalone && dryRun && !params.plan) return NO_PLANNING
  const access = await cloudAccessOf(ctx, record, env)
  if ('unavailable' in access) {
    if (standalone) throw new JobFailure(PLAN_CODES.unavailable, access.unavailable)
    return { secrets: [], finish: async (result) => (dryRun ? { ...result, plan: { unavailable: access.unavailable } } : result) }
  }
  const holders = await ctx.dataHolders(templatesVersion)
  let outcome: PlanOutcome | undefined
  let warning: string | undefined
  let ruleWarnings: string[] = []
  const onMerge: PushRequest['onMerge'] = async (trees, read) => {
    const tree = kind === 'drift' ? trees.branch : trees.merged
    if (kind === 'drift' && tree.size === 0)
      throw new JobFailure(PLAN_CODES.unavailable, 'The branch holds nothing pushed yet: push first, then check drift.')
    // A push that changes nothing on the branch changes nothing in the cloud either.
    if (!dryRun && !standalone && sameTree(trees.branch, trees.merged)) return
    try {
      outcome = await runPlan({
        settings: ctx.config.plan,
        cloud: access.cloud,
        holders,
        kind,
        environmentId: record.environmentId,
        warm: ctx.warmDirs,
        files: filesOf(tree, read),
      })
    } catch (err) {
      if (standalone || dryRun || !(err instanceof JobFailure)) throw err
      warning = `The push was not planned, so data-holding resources were not checked (${err.code}): ${err.message}`
      return
    }
    if (!dryRun && !standalone) guard(outcome.dataAtRisk, params.confirmDestroy)
    if (!dryRun && !standalone) ruleWarnings = await judgePlan(ctx, record, outcome)
  }
  const finish = async (result: PushJobResult | DryRunResult): Promise<object> => {
    const plan = outcome && ({ ...outcome, branch: result.branch, templatesCommit: result.templatesCommit } satisfies PlanResult)
    if (kind === 'drift' && plan) await ctx.drift.record(record.environmentId, record._id, plan)
    if (standalone) {
      const line = kind === 'drift' ? `${plan!.resources.length} resource(s) drifted` : planSummaryLine(plan!.summary)
      await ctx.environments.planned?.(record.userId, record.environmentId, record._id, kind, { plan: line })
      return plan!
    }
    if (dryRun) return { ...result, plan }
    const warnings = [...(('warnings' in result && result.warnings) || []), ...(warning ? [warning] : []), ...ruleWarnings]
    if (plan) ctx.log.info({ jobId: record._id, plan: planSummaryLine(plan.summary) }, 'push planned')
    return { ...result, ...(plan && { plan }), ...(warnings.length > 0 && { warnings }) }
  }
  return { onMerge, secrets: cloudSecrets(access.cloud), finish }
}

/** A plan or drift job that failed is in the history too, with its error as stored (redacted); a push or dry run is not. */
export async function planFailed(ctx: JobContext, record: JobRecord, error: JobError): Promise<void> {
  if (record.type !== 'plan' && record.type !== 'drift') return
  await ctx.environments
    .planned?.(record.userId, record.environmentId, record._id, record.type, { error: { code: error.code, message: error.message } })
    .catch((err: Error) => ctx.log.warn({ jobId: record._id, err: { message: err.message } }, 'failed plan not recorded in the history'))
}

function sameTree(a: ReadonlyMap<string, { oid: string; mode: string }>, b: ReadonlyMap<string, { oid: string; mode: string }>): boolean {
  if (a.size !== b.size) return false
  for (const [path, entry] of a) if (b.get(path)?.oid !== entry.oid || b.get(path)?.mode !== entry.mode) return false
  return true
}
