// ies generate <env> [--format ...] [--include-*] [-o file.zip] [--no-wait]
import type { Command } from 'commander'
import { saveArchive, type ArchiveResult } from '../archive.ts'
import type { Job } from '@ies/api'
import type { Context } from '../context.ts'
import { addFormatOption, addIncludeOptions, includeOptions, type IncludeFlags } from '../generate-options.ts'
import { withExamples } from '../help.ts'
import { addWaitOptions, failedJob, waitForJob, waits, type WaitOptions } from '../job-wait.ts'
import { findEnvironment } from '../lookup.ts'
import { UsageError } from '../settings.ts'

type GenerateOpts = IncludeFlags & WaitOptions & { format?: string; out?: string }

export function registerGenerate(program: Command, ctx: () => Context): void {
  const command = program
    .command('generate <env>')
    .description('Generate the infrastructure code of an environment (a job), wait for it, and save the zip with --out')
  addFormatOption(command, 'terraform')
  addIncludeOptions(command)
  command.option('-o, --out <file.zip>', 'save the archive to this file (checked against the checksum the job recorded)')
  addWaitOptions(command, 'generation')
  withExamples(command, [
    '# the Terraform stack with its S3 backend, saved as a zip',
    'ies generate shop-dev --include-backend -o shop-dev.zip',
    '# queue it and come back later',
    'ies generate shop-dev --no-wait',
    'ies jobs wait <job-id> && ies jobs download <job-id>',
  ])
  command.action(async (name: string, opts: GenerateOpts) => {
    const c = ctx()
    if (opts.out && !waits(opts)) throw new UsageError('--out needs the job to finish: leave out --no-wait')
    const client = await c.client()
    const environment = await findEnvironment(client, name)
    let job: Job = await client.generate(environment.id, {
      format: (opts.format ?? 'terraform') as 'terraform',
      options: includeOptions(opts),
    })
    if (!waits(opts)) {
      c.out.result(job, () => c.out.line(`Queued generation job ${job.id} (ies jobs wait ${job.id}).`))
      return
    }
    job = await waitForJob(client, c.out, job.id, { timeoutSeconds: opts.timeout })
    if (job.status !== 'succeeded') throw failedJob(c.out, job)
    const result = job.result as ArchiveResult | undefined
    const saved = opts.out ? await saveArchive(client, job, opts.out) : undefined
    c.out.result({ ...job, ...(saved && { out: saved.file }) }, () => {
      c.out.line(`Generated ${result?.fileCount ?? '?'} files (templates ${result?.templatesCommit?.slice(0, 12) ?? '?'}), job ${job.id}.`)
      if (saved) c.out.line(`Saved ${saved.file} (${saved.size} bytes).`)
      else c.out.line(`Download it with: ies jobs download ${job.id}`)
    })
  })
}
