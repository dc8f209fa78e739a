// The `push` job: alone among its environment's pushes (a dry run excepted), it reads the
// environment once its turn has come, migrates it in memory, asks the push rule again (push-rule.ts:
// provider, repository, destination, deploy key), generates (or reads an earlier generation back)
// and pushes (push-job.ts); the migrated configuration is stored after a push that pushed.
import { unzipToFiles, type TreeFile } from '@ies/processor-lib'
import { credentialSecrets } from '../../core/redaction.ts'
import { generate } from '../generation/generation.ts'
import { processorInput, templatesVersionOf, type JobEnvironment, type ProcessorInput } from '../generation/transform.ts'
import { pushEnvironment, type LifecyclePushParams } from '../push/push-job.ts'
import { checkPushJob, isUsableGeneration, pushFailure, PUSH_PROBLEMS } from '../push/push-rule.ts'
import { planFailed, pushPlanning, type Planning } from '../plan/push-plan.ts'
import { UNZIP_LIMITS } from '../../core/archive-limits.ts'
import type { ArchiveId } from './archives.ts'
import { keptAlive, recorded, type JobContext, type Touch } from './job-context.ts'
import type { GenerateResult, JobRecord, PushResult } from './store.ts'

/**
 * A push (not a dry run) runs alone among its environment's pushes (pushTurn), and reads the
 * environment once its turn has come; its locks (the job's and the environment's push lock) are
 * kept fresh for as long as it runs, the Git part included.
 */
export async function runPush(ctx: JobContext, record: JobRecord, touch: Touch, environment: Promise<JobEnvironment>): Promise<void> {
  const params = record.params as LifecyclePushParams
  const exclusive = params.dryRun !== true
  const { environmentId, _id: jobId } = record
  const keep = () => Promise.all([touch(), exclusive && ctx.pushLocks.refresh(environmentId, jobId)])
  let deployKey: string | null = null
  let input: ProcessorInput | undefined
  let planning: Planning | undefined
  try {
    await keptAlive(ctx.config.jobs.lockLifetimeMs, keep, async () => {
      if (exclusive && (await pushTurn(ctx, record, keep))) {
        environment.catch(() => {})
        environment = ctx.environmentOf(record)
      }
      const stored = await environment
      const migrated = await ctx.migrations.migrated(stored, templatesVersionOf(stored, params.templatesVersion))
      const { env } = migrated
      input = processorInput(env)
      deployKey = await ctx.environments.getDeployKey(record.userId, environmentId)
      const pushable = await checkPushJob(env, deployKey, ctx.config.push.allowedHosts)
      planning = await pushPlanning(ctx, record, env, templatesVersionOf(env, params.templatesVersion))
      const { files, templatesCommit } = params.generationJobId
        ? await filesOfGeneration(ctx, record, params.generationJobId)
        : await generate({
            input,
            format: params.format,
            options: params.options,
            processor: ctx.processor,
            environmentId,
            ...recorded(migrated.migrations),
            templatesVersion: templatesVersionOf(env, params.templatesVersion),
          })
      const result = await pushEnvironment({
        ...ctx.pushing,
        job: record,
        env,
        url: pushable.repository.url,
        branch: pushable.repository.branch || undefined,
        deployKey: pushable.deployKey,
        files,
        templatesCommit,
        input,
        onMerge: planning.onMerge,
      })
      if (migrated.applied.length > 0) {
        Object.assign(result, { configurationChange: { migrations: migrated.applied, changes: migrated.changes } })
        if (!params.dryRun) await ctx.migrations.storeMigrated(record, templatesVersionOf(stored, params.templatesVersion))
      }
      await ctx.store.succeed(record, (await planning.finish(result)) as PushResult, { processorInput: input })
    })
  } catch (err) {
    const secrets = [...credentialSecrets(ctx.config.push.username, deployKey), ...(planning?.secrets ?? [])]
    await ctx.fail(record, err, input, secrets, (error) => planFailed(ctx, record, error))
  } finally {
    if (exclusive) await ctx.pushLocks.release(environmentId, jobId).catch(() => {})
  }
}

/**
 * Waits until the push job holds its environment's push lock (push-lock.ts), keeping its own lock
 * fresh meanwhile; woken when the holder finishes, else it looks again after 0.1, 0.2 ... 2 s.
 * Whether it had to wait.
 */
async function pushTurn(ctx: JobContext, record: JobRecord, keep: () => Promise<unknown>): Promise<boolean> {
  const { lockLifetimeMs } = ctx.config.jobs
  let pause = 100
  for (let waited = false; ; waited = true) {
    const holder = await ctx.pushLocks.take(record.environmentId, record._id, lockLifetimeMs)
    if (holder === null) return waited
    if (!waited) ctx.log.info({ jobId: record._id, waitingFor: holder }, "push waits for the environment's running push")
    const waiter = ctx.completions.waiter(holder, Math.min(pause, lockLifetimeMs / 3))
    await waiter.woken
    waiter.cancel()
    pause = Math.min(pause * 2, 2000)
    await keep()
  }
}

/** The files of an earlier successful generation of the same environment (the push rule's `isUsableGeneration`), read back from its archive. */
async function filesOfGeneration(
  ctx: JobContext,
  record: JobRecord,
  generationJobId: string,
): Promise<{ files: TreeFile[]; templatesCommit: string }> {
  const generation = await ctx.store.get(record.userId, generationJobId)
  if (!isUsableGeneration(generation, record.environmentId)) {
    throw pushFailure(PUSH_PROBLEMS.generation)
  }
  const inputs = await unzipToFiles(await ctx.archives.read(generation.archiveId as ArchiveId), UNZIP_LIMITS)
  return { files: inputs, templatesCommit: (generation.result as GenerateResult).templatesCommit }
}
