// The job engine's front: Agenda (job-queue.ts) dispatches the `generate`, `push`, `plan` and `drift`
// jobs, each run as an attempt (job-attempt.ts) of the work of its type (generate-work.ts,
// push-work.ts); the job record in `jobs` (store.ts) is what the API serves. A new job starts at once
// through the notification channel; a job whose worker died is locked again by any replica once its
// lock is older than JOBS_LOCK_LIFETIME_MS (found on the next JOBS_PROCESS_EVERY_MS scan).
import type { Agenda } from 'agenda'
import type { Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../../config.ts'
import type { MigrationsSource } from '../../templates/migrations.ts'
import type { DataHoldersSource } from '../plan/data-holders.ts'
import { DriftRecords } from '../plan/drift-records.ts'
import { WarmDirs } from '../plan/warm-dirs.ts'
import type { TemplateProcessor } from '../generation/generation.ts'
import { PushRecords } from '../push/push-records.ts'
import { ArchiveStore } from './archives.ts'
import { CompletionBus } from './completions.ts'
import { runGenerate } from './generate-work.ts'
import type { EnvironmentAccess } from './environment-access.ts'
import { environmentOf, JobAttempts } from './job-attempt.ts'
import type { JobContext } from './job-context.ts'
import { failJob } from './job-failures.ts'
import { JobMigrations } from './job-migrations.ts'
import { jobQueue, type QueueData } from './job-queue.ts'
import { notificationChannel, type WakeableChannel } from './notifications.ts'
import { PushLocks } from './push-lock.ts'
import { runPush } from './push-work.ts'
import { sweep, type RetainedSweep } from './retention.ts'
import { JobStore, type GenerateParams, type JobApproval, type JobError, type JobRecord, type JobType, type PushParams } from './store.ts'
import { waitForAny } from './waits.ts'

export interface JobRunnerOptions {
  db: Db
  config: Config
  log: FastifyBaseLogger
  /** What generation runs: processor-lib in process, or the remote processor service (processor-client.ts). */
  processor: TemplateProcessor
  environments: EnvironmentAccess
  /** The templates' migrations (templates/migrations.ts); none: environments are generated as stored. */
  migrations?: MigrationsSource
  /** The templates' data-holding resource types (jobs/plan/data-holders.ts); none: nothing is marked. */
  dataHolders?: DataHoldersSource
}

export class JobRunner {
  readonly store: JobStore
  readonly archives: ArchiveStore
  readonly agenda: Agenda
  /** Wakes the waiters of a finished job, here and (with REDIS_URL) on every replica. */
  readonly completions: CompletionBus
  /** Each job's attempt: its record started, its work run, its waiters woken. */
  private readonly attempts: JobAttempts
  private readonly channel: WakeableChannel | undefined
  private started = false
  private sweeper?: NodeJS.Timeout
  /** Records of other kinds kept as long as jobs are, by kind (see `retain`). */
  private readonly retained = new Map<string, RetainedSweep>()
  /** What the push job needs beside the job (push-job.ts). */
  readonly pushing: { records: PushRecords; config: Config }
  /** The last drift check of each environment (GET /api/environments/:id). */
  readonly drift: DriftRecords
  /** The initialised Terraform directories plans reuse, removed when the runner stops. */
  private readonly warmDirs = new WarmDirs()
  /** One push per environment at a time. */
  private readonly pushLocks: PushLocks
  /** What the jobs' work is given (job-context.ts). */
  private readonly context: JobContext

  constructor(private readonly opts: JobRunnerOptions) {
    this.store = new JobStore(opts.db)
    this.archives = new ArchiveStore(opts.db)
    this.completions = new CompletionBus(opts.config.rateLimit.redisUrl, (err) =>
      opts.log.warn({ err: { message: err.message } }, 'job completion channel error'),
    )
    this.pushing = { records: new PushRecords(opts.db), config: opts.config }
    this.pushLocks = new PushLocks(opts.db)
    this.drift = new DriftRecords(opts.db)
    this.context = {
      store: this.store,
      archives: this.archives,
      config: opts.config,
      log: opts.log,
      processor: opts.processor,
      environments: opts.environments,
      migrations: new JobMigrations(opts.migrations, opts.environments, opts.log),
      completions: this.completions,
      pushLocks: this.pushLocks,
      pushing: this.pushing,
      drift: this.drift,
      dataHolders: opts.dataHolders ?? (async () => ({})),
      warmDirs: this.warmDirs,
      environmentOf: (record, read) => environmentOf(opts.environments, record, read),
      fail: (record, err, input, secrets, before) => failJob({ store: this.store, log: opts.log }, record, err, input, secrets, before),
    }
    this.channel = notificationChannel({ notify: opts.config.jobs.notify, redisUrl: opts.config.rateLimit.redisUrl })
    const work = { generate: runGenerate, push: runPush, plan: runPush, drift: runPush }
    this.agenda = jobQueue({ ...opts, channel: this.channel }, (type, job) =>
      this.attempts.run(job, (...args) => work[type](this.context, ...args)),
    )
    const { agenda, store, completions } = this
    const { environments, log } = opts
    this.attempts = new JobAttempts({ agenda, store, completions, environments, log, lockLifetimeMs: opts.config.jobs.lockLifetimeMs })
  }

  /** Starts processing; with JOBS_PROCESS=false only connects the notification channel, so jobs queued here still start at once elsewhere. */
  async start(): Promise<void> {
    if (this.started) return
    await Promise.all([this.store.init(), this.archives.init(), this.pushing.records.init(), this.completions.connect()])
    if (this.opts.config.jobs.process) {
      await this.agenda.start()
      // Retention runs where jobs run, in the background; a failed sweep waits for the next.
      this.sweeper = setInterval(
        () => void this.sweep().catch((err: Error) => this.opts.log.warn({ err: { message: err.message } }, 'retention sweep failed')),
        this.opts.config.jobs.retention.sweepEveryMs,
      )
      this.sweeper.unref()
    } else await this.channel?.connect()
    this.started = true
  }

  /** Records of another kind (`kind`, e.g. upgrade rollouts) to keep as long as jobs are: `fn` removes those older than the age limit with every sweep. */
  retain(kind: string, fn: RetainedSweep): void {
    this.retained.set(kind, fn)
  }

  /** Removes the finished jobs (and archives) retention lets go (retention.ts), and the records of the kinds retained with them; what it removed. */
  sweep(): ReturnType<typeof sweep> {
    const { retention, lockLifetimeMs } = this.opts.config.jobs
    // A claim matters while its attempt may still be running or retried: far below the age limit.
    return sweep(this.store, this.archives, retention, Math.max(retention.maxAgeMs, lockLifetimeMs * 10), this.retained)
  }

  /** Lets running jobs finish for up to `timeoutMs`, then stops (unfinished jobs are unlocked for other replicas). */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.started) return
    this.started = false
    clearInterval(this.sweeper)
    if (this.opts.config.jobs.process) {
      await this.agenda.drain(timeoutMs).catch(() => {})
      await this.agenda.stop().catch(() => {})
    } else {
      await this.channel?.disconnect().catch(() => {})
    }
    await this.completions.disconnect()
    await this.warmDirs.close().catch(() => {})
  }

  /** Stores the job record and queues it; the record as queued. */
  async enqueue(type: JobType, userId: string, environmentId: string, params: GenerateParams | PushParams): Promise<JobRecord> {
    const record = await this.store.create(type, userId, environmentId, params)
    await this.agenda.now<QueueData>(type, { jobId: record._id, userId, environmentId })
    return record
  }

  /** Stores a push that waits for approval: nothing is queued (no worker is held) until `release`. */
  hold(userId: string, environmentId: string, params: PushParams, approval: JobApproval): Promise<JobRecord> {
    return this.store.create('push', userId, environmentId, params, approval)
  }

  /** Queues an approved job (its record already says `queued`). */
  async release(record: JobRecord): Promise<void> {
    await this.agenda.now<QueueData>(record.type, { jobId: record._id, userId: record.userId, environmentId: record.environmentId })
  }

  /** Ends a job that never ran (a rejected or expired approval) with `error`, and wakes its waiters. */
  async end(record: JobRecord, error: JobError): Promise<void> {
    try {
      await this.store.fail(record, error)
      this.completions.announceHere(record._id)
      await this.store.dequeue(record._id)
    } finally {
      this.completions.announce(record._id)
    }
  }

  /**
   * The record once it has finished, or as it is after `timeoutMs` (null: not the user's job).
   * See `waitForAny`.
   */
  async waitFor(userId: string, jobId: string, timeoutMs: number): Promise<JobRecord | null> {
    return (await this.waitForAny(userId, [jobId], timeoutMs))[0]
  }

  /** The records once one of them has finished, or as they are after `timeoutMs` (waits.ts). */
  waitForAny(userId: string | null, jobIds: readonly string[], timeoutMs: number): Promise<(JobRecord | null)[]> {
    return waitForAny(this.store, this.completions, this.opts.config.jobs.waitRecheckMs, userId, jobIds, timeoutMs)
  }
}
