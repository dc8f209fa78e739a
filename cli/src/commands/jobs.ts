// ies jobs list <env> | get <id> | wait <id> | download <id>
import { InvalidArgumentError, type Command } from 'commander'
import { saveArchive } from '../archive.ts'
import type { Job } from '@ies/api'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import { jobFailure, seconds, waitForJob } from '../job-wait.ts'
import { findEnvironment } from '../lookup.ts'
import type { Output } from '../output.ts'

function printJob(out: Output, job: Job): void {
  out.table(['ID', 'TYPE', 'STATUS', 'CREATED', 'FINISHED'], [[job.id, job.type, job.status, job.createdAt, job.finishedAt ?? '']])
  if (job.error) out.line(`error ${job.error.code}: ${job.error.message}`)
  if (job.result) out.line(`result ${JSON.stringify(job.result)}`)
}

function positive(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError('expected a whole number from 1 to 100')
  return n
}

export function registerJobs(program: Command, ctx: () => Context): void {
  const jobs = withExamples(program.command('jobs').description('Generation and push jobs: list, show, wait for, download'), [
    'ies jobs list shop-dev',
    'ies jobs download <job-id>',
  ])

  withExamples(
    jobs
      .command('list <env>')
      .description("An environment's generation and push jobs, newest first")
      .option('--limit <count>', 'how many jobs (1 to 100, default 20)', positive, 20),
    ['ies jobs list shop-dev', 'ies jobs list shop-dev --limit 5 --json'],
  ).action(async (name: string, opts: { limit: number }) => {
    const c = ctx()
    const client = await c.client()
    const environment = await findEnvironment(client, name)
    const { data } = await client.environmentJobs(environment.id, { limit: opts.limit })
    c.out.result(data, () => {
      if (data.length === 0) return c.out.line(`No jobs for ${environment.name}.`)
      c.out.table(
        ['ID', 'TYPE', 'STATUS', 'CREATED', 'FINISHED', 'ERROR'],
        data.map((j) => [j.id, j.type, j.status, j.createdAt, j.finishedAt ?? '', j.error?.code ?? '']),
      )
    })
  })

  withExamples(jobs.command('get <id>').description('Show a job'), ['ies jobs get <job-id>', 'ies jobs get <job-id> --json']).action(
    async (id: string) => {
      const c = ctx()
      const job = await (await c.client()).job(id)
      c.out.result(job, () => printJob(c.out, job))
    },
  )

  withExamples(
    jobs
      .command('wait <id>')
      .description('Wait until a job has finished; exits 1 when it failed (6 for a push conflict)')
      .option('--timeout <seconds>', 'stop waiting after this many seconds (exit 7; the job goes on on the server)', seconds),
    ['ies jobs wait <job-id>', 'ies jobs wait <job-id> --timeout 300'],
  ).action(async (id: string, opts: { timeout?: number }) => {
    const c = ctx()
    const job = await waitForJob(await c.client(), c.out, id, { timeoutSeconds: opts.timeout })
    c.out.result(job, () => printJob(c.out, job))
    if (job.status === 'failed') throw jobFailure(job)
  })

  withExamples(
    jobs
      .command('download <id>')
      .description("Save a successful generation's archive (a zip, checked against the job's checksum)")
      .option('-o, --out <file.zip>', "where to save it (default: the server's file name in the current folder)"),
    ['ies jobs download <job-id>', 'ies jobs download <job-id> -o shop-dev.zip'],
  ).action(async (id: string, opts: { out?: string }) => {
    const c = ctx()
    const client = await c.client()
    const job = await client.job(id)
    const saved = await saveArchive(client, job, opts.out)
    c.out.result({ jobId: job.id, out: saved.file, size: saved.size }, () => c.out.line(`Saved ${saved.file} (${saved.size} bytes).`))
  })
}
