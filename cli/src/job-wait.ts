// Waiting for a job: the API's long poll (`GET /jobs/:id?wait=true`, up to JOBS_WAIT_TIMEOUT_MS a
// request) again and again until the job has ended, with one progress line on a terminal. Every
// command that queues a job (generate, push, upgrade) waits this way: by default, `--no-wait` to
// queue and return, `--timeout` to give up (exit 7; the job goes on).
import { InvalidArgumentError, type Command } from 'commander'
import type { ApiClient, Job } from '@ies/api'
import { CommandFailed, EXIT, type Output } from './output.ts'

const ENDED = new Set(['succeeded', 'failed'])

export interface WaitOptions {
  /** False with `--no-wait`; true with `--wait`; unset (wait) without either. */
  wait?: boolean
  timeout?: number
}

/** Whether the command waits for its job: unless `--no-wait`. */
export const waits = (opts: WaitOptions) => opts.wait !== false

/** A `--timeout` value: seconds above 0. */
export function seconds(value: string): number {
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds above 0')
  return n
}

/** `--no-wait` and `--timeout <seconds>`, the same on every command that queues a job. */
export function addWaitOptions(command: Command, what: string): Command {
  return command
    .option('--wait', `wait for the ${what} to end (the default)`)
    .option('--no-wait', `queue the ${what} and print the job id instead of waiting (then: ies jobs wait <id>)`)
    .option('--timeout <seconds>', 'stop waiting after this many seconds (exit 7; the job goes on on the server)', seconds)
}

/** A promise that settles after `ms` (never, for Infinity) and a way to cancel it. */
function timer(ms: number): { done: Promise<void>; cancel: () => void } {
  let handle: NodeJS.Timeout | undefined
  const done = new Promise<void>((resolve) => {
    if (Number.isFinite(ms)) handle = setTimeout(resolve, Math.max(0, ms))
  })
  return { done, cancel: () => clearTimeout(handle) }
}

export async function waitForJob(client: ApiClient, out: Output, jobId: string, opts: { timeoutSeconds?: number } = {}): Promise<Job> {
  const started = Date.now()
  const deadline = opts.timeoutSeconds ? started + opts.timeoutSeconds * 1000 : Infinity
  let job = await client.job(jobId)
  while (!ENDED.has(job.status)) {
    if (Date.now() >= deadline) {
      if (out.interactive) process.stderr.write('\r\x1b[K')
      throw new CommandFailed(
        `Job ${jobId} is still ${job.status} after ${opts.timeoutSeconds} s; it goes on (ies jobs wait ${jobId})`,
        EXIT.TIMEOUT,
        'TIMEOUT',
      )
    }
    if (out.interactive)
      process.stderr.write(`\r${out.colors.dim(`${job.type} ${job.id}: ${job.status} (${Math.round((Date.now() - started) / 1000)} s)`)}`)
    // The long poll ends at the deadline at the latest: the request is aborted, not left running.
    const abort = new AbortController()
    const limit = timer(deadline - Date.now())
    const polled = client.job(jobId, { wait: true, signal: abort.signal })
    const next = await Promise.race([polled, limit.done.then(() => null)])
    limit.cancel()
    if (next) job = next
    else {
      abort.abort()
      await polled.catch(() => undefined)
    }
  }
  if (out.interactive) process.stderr.write('\r\x1b[K')
  return job
}

/** A job that ended without success: the job on stdout in --json mode (as `ies jobs wait`), then its failure to throw. */
export function failedJob(out: Output, job: Job): CommandFailed {
  out.result(job, () => undefined)
  return jobFailure(job)
}

/** A failed job as an error: its code and message, and the processor's findings as details (exit 6 for a push conflict). */
export function jobFailure(job: Job): CommandFailed {
  return new CommandFailed(
    `${job.type} job ${job.id} failed: ${job.error?.message ?? 'no reason given'}`,
    job.error?.code === 'PUSH_CONFLICT'
      ? EXIT.PUSH_CONFLICT
      : job.error?.code === 'PUSH_WOULD_DESTROY_DATA'
        ? EXIT.DATA_AT_RISK
        : EXIT.FAILURE,
    job.error?.code ?? 'JOB_FAILED',
    job.error?.details,
  )
}
