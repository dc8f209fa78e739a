// ies generate <env> --format ... [--wait] [--out file.zip]
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { Option, type Command } from 'commander'
import type { Job } from '../client/index.ts'
import type { Context } from '../context.ts'
import { jobFailure, waitForJob } from '../job-wait.ts'
import { findEnvironment } from '../lookup.ts'
import { CommandFailed, EXIT } from '../output.ts'

export const FORMATS = ['terraform', 'helm', 'argocd']

type ArchiveResult = { archive?: { filename: string; size: number; sha256: string }; fileCount?: number; templatesCommit?: string }

interface GenerateOpts {
  format: string
  includeBackend?: boolean
  includeChart?: boolean
  includeGitops?: boolean
  wait?: boolean
  out?: string
  timeout?: number
}

export function registerGenerate(program: Command, ctx: () => Context): void {
  program
    .command('generate <env>')
    .description('Generate the infrastructure code of an environment (a job); --wait --out saves the zip')
    .addOption(new Option('--format <format>', 'what to generate').choices(FORMATS).default('terraform'))
    .option('--include-backend', 'write terraform/backend.tf (S3 state)')
    .option('--include-chart', 'add the chart values (charts/**)')
    .option('--include-gitops', 'add the Argo CD definitions (gitops/**)')
    .option('--wait', 'wait for the job to finish')
    .option('-o, --out <file.zip>', 'save the archive here (implies --wait)')
    .option('--timeout <seconds>', 'give up waiting after this long', Number)
    .action(async (name: string, opts: GenerateOpts) => {
      const c = ctx()
      const client = await c.client()
      const environment = await findEnvironment(client, name)
      const options = {
        includeBackend: Boolean(opts.includeBackend),
        includeChart: Boolean(opts.includeChart),
        includeGitops: Boolean(opts.includeGitops),
      }
      let job: Job = await client.generate(environment.id, { format: opts.format as 'terraform', options })
      if (!opts.wait && !opts.out) {
        c.out.result(job, () => c.out.line(`Queued generation job ${job.id} (ies jobs wait ${job.id}).`))
        return
      }
      job = await waitForJob(client, c.out, job.id, { timeoutSeconds: opts.timeout })
      if (job.status !== 'succeeded') throw jobFailure(job)
      const result = job.result as ArchiveResult | undefined
      if (opts.out) {
        const { bytes } = await client.download(job.id)
        const sha256 = createHash('sha256').update(bytes).digest('hex')
        if (result?.archive?.sha256 && result.archive.sha256 !== sha256) {
          throw new CommandFailed(
            `The downloaded archive does not match the job's checksum (${result.archive.sha256})`,
            EXIT.FAILURE,
            'CHECKSUM_MISMATCH',
          )
        }
        writeFileSync(opts.out, bytes)
      }
      c.out.result({ ...job, ...(opts.out && { out: opts.out }) }, () => {
        c.out.line(
          `Generated ${result?.fileCount ?? '?'} files (templates ${result?.templatesCommit?.slice(0, 12) ?? '?'}), job ${job.id}.`,
        )
        if (opts.out) c.out.line(`Saved ${opts.out} (${result?.archive?.size ?? '?'} bytes).`)
      })
    })
}
