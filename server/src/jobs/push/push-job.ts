// The push job's work once the files are generated: the commit message, the merge and push
// (push.ts), the record of the last push (push-records.ts), and the job's result. Dry runs record
// nothing and write nothing to the customer's repository.
import type { TreeFile } from '@ies/processor-lib'
import type { JobEnvironment } from '../generation/transform.ts'
import type { Config } from '../../config.ts'
import { pushHttp } from './destination.ts'
import { generationRecord, generationRecordFile, recordOf } from './generation-record.ts'
import { pushFiles, type PushRequest, type PushStrategy } from './push.ts'
import { pushCommitMessage } from './push-message.ts'
import { recordedChanges, recordedConflicts } from './push-details.ts'
import type { PushRecords } from './push-records.ts'
import type { DryRunResult, PushJobResult } from '@ies/api/schemas/push'
import type { JobRecord, PushParams } from '../queue/store.ts'
import type { ProcessorInput } from '../generation/transform.ts'

/** A push job's parameters: what to generate, and how to push it. */
export interface LifecyclePushParams extends PushParams {
  dryRun?: boolean
  strategy?: PushStrategy
  /** The templates version an upgrade pushes (a resolved commit); default the environment's pin, else the newest. */
  templatesVersion?: string
  /** A dry run: plan the tree the push would write too (result.plan). */
  plan?: boolean
  /** The data-holding addresses the push may replace or destroy (its plan's dataAtRisk, exactly). */
  confirmDestroy?: string[]
}

/** `ies/update-<first 8 characters of the job id>`: the branch strategy "branch" pushes to. */
export const reviewBranchOf = (jobId: string) => `ies/update-${jobId.replace(/-/g, '').slice(0, 8)}`

export async function pushEnvironment(opts: {
  records: PushRecords
  config: Pick<Config, 'push'>
  job: JobRecord
  env: JobEnvironment
  url: string
  /** None: the repository's default branch. */
  branch?: string
  deployKey: string
  files: readonly TreeFile[]
  templatesCommit: string
  input: ProcessorInput
  /** See PushRequest.onMerge (a plan of the merged tree: jobs/plan/push-plan.ts). */
  onMerge?: PushRequest['onMerge']
  /** For tests: see PushRequest.beforeUpdate. */
  beforeUpdate?: PushRequest['beforeUpdate']
}): Promise<PushJobResult | DryRunResult> {
  const { job, env } = opts
  const params = job.params as LifecyclePushParams
  const strategy = params.strategy ?? 'merge'
  // The generation record, read once per push: files of an earlier generation (generationJobId)
  // carry the input they were made from; an archive made before the record existed gets one.
  const carried = recordOf(opts.files)
  const input = carried?.input ?? opts.input
  const record =
    carried ??
    generationRecord({
      environmentId: env._id,
      environmentName: env.name,
      templatesCommit: opts.templatesCommit,
      format: params.format,
      options: params.options,
      input: opts.input,
    })
  const files = carried ? opts.files : [...opts.files, generationRecordFile(record)]
  const outcome = await pushFiles({
    url: opts.url,
    branch: opts.branch,
    auth: { username: opts.config.push.username, password: opts.deployKey },
    files,
    author: { name: opts.config.push.authorName, email: opts.config.push.authorEmail },
    strategy,
    reviewBranch: reviewBranchOf(job._id),
    dryRun: params.dryRun === true,
    beforeUpdate: opts.beforeUpdate,
    onMerge: opts.onMerge,
    keptBase: (record) => (record.environmentId === env._id ? opts.records.bases.files(record) : Promise.resolve(null)),
    record,
    // The record as pushed may be the branch's copy of the same generation (push.ts): the same identity, so the same kept base.
    keepBase: async (pushed) => {
      await opts.records.bases.keep(pushed, record)
    },
    http: pushHttp(opts.config.push.allowedHosts, opts.config.push.gitTimeoutMs),
    cacheDir: opts.config.push.cacheDir,
    message: (previous) =>
      pushCommitMessage({
        environmentId: env._id,
        environmentName: env.name,
        format: params.format,
        templatesCommit: opts.templatesCommit,
        input,
        jobId: job._id,
        previous,
      }),
  })
  const from = params.generationJobId ? { generationJobId: params.generationJobId } : {}
  if (params.dryRun) {
    return {
      dryRun: true,
      branch: outcome.branch,
      strategy,
      templatesCommit: opts.templatesCommit,
      changes: recordedChanges(outcome.changes ?? []),
      conflicts: recordedConflicts(outcome.conflicts),
      ...from,
    }
  }
  const commit = outcome.commit as string
  await opts.records.record({
    environmentId: env._id,
    // The upgrade status is kept per owner (a user, or a team: `team:<id>`), whoever pushed.
    userId: env.userId,
    jobId: job._id,
    commit,
    branch: outcome.branch,
    templatesCommit: opts.templatesCommit,
    format: params.format,
    options: params.options,
    input,
    ofEnvironment: strategy === 'merge',
  })
  return {
    commit,
    branch: outcome.branch,
    url: opts.url,
    strategy,
    changed: outcome.changed,
    templatesCommit: opts.templatesCommit,
    fileCount: files.length,
    ...from,
    ...(strategy === 'branch' && { conflicts: recordedConflicts(outcome.conflicts) }),
    ...(outcome.warnings && { warnings: outcome.warnings }),
  }
}
