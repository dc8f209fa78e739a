// Waiting for a job: the API's long poll (`GET /jobs/:id?wait=true`, up to JOBS_WAIT_TIMEOUT_MS a
// request) again and again until the job has ended, with one progress line on a terminal.
import type { ApiClient, Job } from './client/index.ts'
import { CommandFailed, EXIT, type Output } from './output.ts'

const ENDED = new Set(['succeeded', 'failed'])

export async function waitForJob(client: ApiClient, out: Output, jobId: string, opts: { timeoutSeconds?: number } = {}): Promise<Job> {
  const started = Date.now()
  const deadline = opts.timeoutSeconds ? started + opts.timeoutSeconds * 1000 : Infinity
  let job = await client.job(jobId)
  while (!ENDED.has(job.status)) {
    if (Date.now() >= deadline) {
      if (out.interactive) out.note('')
      throw new CommandFailed(`Job ${jobId} is still ${job.status} after ${opts.timeoutSeconds} s`, EXIT.FAILURE, 'TIMEOUT')
    }
    if (out.interactive)
      process.stderr.write(`\r${out.colors.dim(`${job.type} ${job.id}: ${job.status} (${Math.round((Date.now() - started) / 1000)} s)`)}`)
    job = await client.job(jobId, { wait: true })
  }
  if (out.interactive) process.stderr.write('\r\x1b[K')
  return job
}

/** A failed job as an error: its code and message, and the processor's findings as details. */
export function jobFailure(job: Job): CommandFailed {
  return new CommandFailed(
    `${job.type} job ${job.id} failed: ${job.error?.message ?? 'no reason given'}`,
    EXIT.FAILURE,
    job.error?.code ?? 'JOB_FAILED',
    job.error?.details,
  )
}
