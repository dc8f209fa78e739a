// ies jobs get | wait <id>
import type { Command } from 'commander'
import type { Job } from '../client/index.ts'
import type { Context } from '../context.ts'
import { jobFailure, waitForJob } from '../job-wait.ts'
import type { Output } from '../output.ts'

function printJob(out: Output, job: Job): void {
  out.table(['ID', 'TYPE', 'STATUS', 'CREATED', 'FINISHED'], [[job.id, job.type, job.status, job.createdAt, job.finishedAt ?? '']])
  if (job.error) out.line(`error ${job.error.code}: ${job.error.message}`)
  if (job.result) out.line(`result ${JSON.stringify(job.result)}`)
}

export function registerJobs(program: Command, ctx: () => Context): void {
  const jobs = program.command('jobs').description('Generation and push jobs')
  jobs
    .command('get <id>')
    .description('Show a job')
    .action(async (id: string) => {
      const c = ctx()
      const job = await (await c.client()).job(id)
      c.out.result(job, () => printJob(c.out, job))
    })
  jobs
    .command('wait <id>')
    .description('Wait until a job has finished; exits 1 when it failed')
    .option('--timeout <seconds>', 'give up after this long', Number)
    .action(async (id: string, opts: { timeout?: number }) => {
      const c = ctx()
      const job = await waitForJob(await c.client(), c.out, id, { timeoutSeconds: opts.timeout })
      c.out.result(job, () => printJob(c.out, job))
      if (job.status === 'failed') throw jobFailure(job)
    })
}
