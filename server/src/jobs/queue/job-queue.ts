// The Agenda queue that dispatches the jobs (runner.ts): Agenda 6 on the service's database
// (agenda-backend.ts, collection `agendaJobs`), woken through the notification channel, with the
// `generate` and `push` jobs under JOBS_CONCURRENCY and the `plan` and `drift` jobs under a limit of
// their own (PLAN_CONCURRENCY each).
import os from 'node:os'
import { Agenda, exponential, type Job } from 'agenda'
import type { Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../../config.ts'
import type { JobType } from '@ies/api/values'
import { queueBackend } from './agenda-backend.ts'
import type { WakeableChannel } from './notifications.ts'

/**
 * An Agenda job's data: the job record's id, and its owner and environment (absent on jobs queued by
 * older versions), so that the environment is read while the job is being started.
 */
export interface QueueData {
  jobId: string
  userId?: string
  environmentId?: string
}

/** The queue, each job type handed to `handle` (the runner's attempt of it). */
export function jobQueue(
  opts: { db: Db; config: Config; log: FastifyBaseLogger; channel: WakeableChannel | undefined },
  handle: (type: JobType, job: Job<QueueData>) => Promise<void>,
): Agenda {
  const { jobs, plan } = opts.config
  const agenda = new Agenda({
    name: `${os.hostname()}-${process.pid}`,
    backend: queueBackend(opts.db),
    notificationChannel: opts.channel,
    processEvery: jobs.processEveryMs,
    defaultConcurrency: jobs.concurrency,
    // Plans and drift checks have their own limit (PLAN_CONCURRENCY each), on top of generate and push.
    maxConcurrency: jobs.concurrency * 2 + plan.concurrency * 2,
    defaultLockLifetime: jobs.lockLifetimeMs,
    // The job's own handler removes its Agenda document (job-attempt.ts): Agenda's removal would be
    // one more database round trip between a job's end and the release of its slot.
    removeOnComplete: false,
  })
  agenda.on('error', (err) => opts.log.warn({ err: { message: err.message } }, 'job queue error'))
  // A replica locks at most `concurrency` jobs of a type (Agenda locks a whole batch before it
  // starts any, one find-and-modify each), and locks the next one as soon as a job ends (`wake`):
  // Agenda itself refills its queue only on a new-job notification or a JOBS_PROCESS_EVERY_MS scan.
  // A run that threw (the database was unreachable: the record could not be read or finished) is
  // run again after 1, 2, 4 ... 30 s; if even that could not be saved, the job's lock expires and
  // the next scan takes it (its Agenda document keeps the expired lock).
  const definition = {
    concurrency: jobs.concurrency,
    lockLimit: jobs.concurrency,
    lockLifetime: jobs.lockLifetimeMs,
    backoff: exponential({ delay: 1000, maxDelay: 30_000, maxRetries: 20, jitter: 0.2 }),
  }
  // After Agenda has released the job's slot (its bookkeeping follows the event synchronously).
  agenda.on('complete', (job: Job) => setImmediate(() => opts.channel?.wake(job.attrs.name)))
  for (const type of ['generate', 'push'] as const) agenda.define<QueueData>(type, (job) => handle(type, job), definition)
  // A plan or drift check is a push dry run that runs Terraform (jobs/plan/push-plan.ts), under a limit
  // of its own: plans never take the slots of generations and pushes.
  const planning = { ...definition, concurrency: plan.concurrency, lockLimit: plan.concurrency }
  for (const type of ['plan', 'drift'] as const) agenda.define<QueueData>(type, (job) => handle(type, job), planning)
  return agenda
}
