// The `generate` job: the environment (migrated in memory), the generation with the job's lock kept
// fresh while it runs, the archive stored and named, the record finished.
import { archiveOf, generate, type Generated } from '../generation/generation.ts'
import { processorInput, templatesVersionOf, type ProcessorInput } from '../generation/transform.ts'
import { keptAlive, recorded, type JobContext, type Touch } from './job-context.ts'
import type { GenerateParams, GenerateResult, JobRecord } from './store.ts'
import type { JobEnvironment } from '../generation/transform.ts'

/** `<environment>-<format>-<short commit>.zip` */
export function archiveName(environmentName: string, format: string, commit: string): string {
  const short = commit.replace(/^sha256-/, '').slice(0, 7)
  return `${environmentName}-${format}-${short}.zip`
}

export async function runGenerate(ctx: JobContext, record: JobRecord, touch: Touch, environment: Promise<JobEnvironment>): Promise<void> {
  const params = record.params as GenerateParams
  let input: ProcessorInput | undefined
  try {
    const stored = await environment
    const { env, migrations } = await ctx.migrations.migrated(stored, templatesVersionOf(stored))
    input = processorInput(env)
    const generated = await generating(ctx, input, params, touch, record.environmentId, migrations, templatesVersionOf(env))
    const zip = await archiveOf(generated)
    await touch() // the lock stays ours while the archive is stored
    const filename = archiveName(env.name, params.format, generated.templatesCommit)
    if (record.attempts > 1) await ctx.archives.removeForJob(record._id) // left by an attempt whose worker died
    const archive = await ctx.archives.put(record._id, filename, zip)
    const result: GenerateResult = {
      format: params.format,
      options: params.options,
      templatesCommit: generated.templatesCommit,
      fileCount: generated.files.length,
      warnings: generated.warnings,
      archive: { filename, size: archive.size, sha256: archive.sha256 },
    }
    await ctx.store.succeed(record, result, { archiveId: archive.id, processorInput: input })
  } catch (err) {
    await ctx.fail(record, err, input)
  }
}

/**
 * The generation, with the job's lock kept fresh while it runs: a remote processor may take longer
 * than a lock lifetime (a clone of a large templates repository), and the job must not be taken
 * over meanwhile.
 */
function generating(
  ctx: JobContext,
  input: ProcessorInput,
  params: GenerateParams,
  touch: Touch,
  environmentId: string,
  migrations: string[],
  templatesVersion: string | undefined,
): Promise<Generated> {
  return keptAlive(ctx.config.jobs.lockLifetimeMs, touch, () =>
    generate({
      input,
      format: params.format,
      options: params.options,
      processor: ctx.processor,
      environmentId,
      ...recorded(migrations),
      templatesVersion,
    }),
  )
}
