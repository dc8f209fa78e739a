// Agenda 6 on the service's database (agenda-backend.ts, collection `agendaJobs`) dispatches
// the `generate` and `push` jobs; the job record in `jobs` (store.ts) is what the API serves. A new
// job starts at once through the notification channel; a job whose worker died is locked again by
// any replica once its lock is older than JOBS_LOCK_LIFETIME_MS (found on the next JOBS_PROCESS_EVERY_MS scan).
import os from 'node:os'
import { Agenda, exponential, type Job } from 'agenda'
import type { Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../../config.ts'
import type { MigrationsSource } from '../../templates/migrations.ts'
import type { DataHoldersSource } from '../plan/data-holders.ts'
import { DriftRecords } from '../plan/drift-records.ts'
import { WarmDirs } from '../plan/warm-dirs.ts'
import type { TemplateProcessor } from '../generation/generation.ts'
import type { JobEnvironment } from '../generation/transform.ts'
import { PushRecords } from '../push/push-records.ts'
import { queueBackend } from './agenda-backend.ts'
import { ArchiveStore } from './archives.ts'
import { CompletionBus } from './completions.ts'
import { JobFailure } from '../../core/job-failure.ts'
import { runGenerate } from './generate-work.ts'
import type { EnvironmentAccess } from './environment-access.ts'
import type { JobContext, Work } from './job-context.ts'
import { failJob } from './job-failures.ts'
import { JobMigrations } from './job-migrations.ts'
import { notificationChannel, type WakeableChannel } from './notifications.ts'
import { PushLocks } from './push-lock.ts'
import { runPush } from './push-work.ts'
import { sweep, type RetainedSweep } from './retention.ts'
import { JobStore, type GenerateParams, type JobApproval, type JobError, type JobRecord, type JobType, type PushParams } from './store.ts'
import { waitForAny } from './waits.ts'

/**
 * An Agenda job's data: the job record's id, and its owner and environment (absent on jobs queued by
 * older versions), so that the environment is read while the job is being started.
 */
interface QueueData {
  jobId: string
  userId?: string
  environmentId?: string
}

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
  /**
   * Attempts this replica gave up because the database was unreachable (job id -> attempt): its
   * own heartbeat on the record must not keep the retry out (see `run`).
   */
  private readonly abandoned = new Map<string, number>()
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
      environmentOf: (record, read) => this.environmentOf(record, read),
      fail: (record, err, input, secrets, before) => failJob({ store: this.store, log: opts.log }, record, err, input, secrets, before),
    }
    const { jobs } = opts.config
    this.channel = notificationChannel({ notify: jobs.notify, redisUrl: opts.config.rateLimit.redisUrl })
    this.agenda = new Agenda({
      name: `${os.hostname()}-${process.pid}`,
      backend: queueBackend(opts.db),
      notificationChannel: this.channel,
      processEvery: jobs.processEveryMs,
      defaultConcurrency: jobs.concurrency,
      // Plans and drift checks have their own limit (PLAN_CONCURRENCY each), on top of generate and push.
      maxConcurrency: jobs.concurrency * 2 + opts.config.plan.concurrency * 2,
      defaultLockLifetime: jobs.lockLifetimeMs,
      // The job's own handler removes its Agenda document (see `run`): Agenda's removal would be one
      // more database round trip between a job's end and the release of its slot.
      removeOnComplete: false,
    })
    this.agenda.on('error', (err) => opts.log.warn({ err: { message: err.message } }, 'job queue error'))
    // A replica locks at most `concurrency` jobs of a type (Agenda locks a whole batch before it
    // starts any, one find-and-modify each), and locks the next one as soon as a job ends (`wake`):
    // Agenda itself refills its queue only on a new-job notification or a JOBS_PROCESS_EVERY_MS scan,
    // so jobs beyond the limit used to wait for the scan (50 concurrent generations took minutes).
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
    this.agenda.on('complete', (job: Job) => setImmediate(() => this.channel?.wake(job.attrs.name)))
    this.agenda.define<QueueData>('generate', (job) => this.run(job, (...args) => runGenerate(this.context, ...args)), definition)
    this.agenda.define<QueueData>('push', (job) => this.run(job, (...args) => runPush(this.context, ...args)), definition)
    // A plan or drift check is a push dry run that runs Terraform (jobs/plan/push-plan.ts), under a limit
    // of its own: plans never take the slots of generations and pushes.
    const { concurrency } = opts.config.plan
    const planning = { ...definition, concurrency, lockLimit: concurrency }
    for (const type of ['plan', 'drift'] as const)
      this.agenda.define<QueueData>(type, (job) => this.run(job, (...args) => runPush(this.context, ...args)), planning)
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

  private async run(job: Job<QueueData>, work: Work): Promise<void> {
    const { jobId, userId, environmentId } = job.attrs.data
    const { lockLifetimeMs } = this.opts.config.jobs
    // The environment is read while the job is started (one round trip fewer before the work); a read
    // left unused (the job is not ours to run) must not end as an unhandled rejection.
    const early = userId && environmentId ? this.opts.environments.get(userId, environmentId) : undefined
    early?.catch(() => {})
    const record = await this.store.start(jobId, lockLifetimeMs, this.abandoned.get(jobId))
    this.abandoned.delete(jobId)
    if (!record) {
      // Finished already (or removed with its environment), or another worker runs it: where Agenda's
      // lock let two workers in (FerretDB, see store.start), this one completes and removes the Agenda
      // document the other one holds, so it leaves a check for when that run's lock would have
      // expired; if its worker has died by then, the check runs the job again.
      // (Still queued: the other worker claimed it and is marking it running, or failed to.)
      const current = await this.store.byId(jobId)
      if (current?.status === 'running' || current?.status === 'queued')
        await this.agenda.schedule(new Date(Date.now() + lockLifetimeMs), job.attrs.name, job.attrs.data)
      await this.dispatched(job)
      return
    }
    try {
      // The Agenda document may be gone (above); the job's own heartbeat is what keeps the run ours.
      // Both are written only once a tenth of the lock lifetime has passed since the last one: a
      // short job costs no writes for them.
      let heard = Date.now()
      const touch = async () => {
        if (Date.now() - heard < lockLifetimeMs / 10) return
        heard = Date.now()
        await Promise.all([job.touch().catch(() => {}), this.store.heartbeat(jobId)])
      }
      const ownRead = early && userId === record.userId && environmentId === record.environmentId
      // The work may await something else before the environment: its absence must not surface
      // meanwhile as an unhandled rejection (the work still sees it when it awaits).
      const environment = this.environmentOf(record, ownRead ? early : undefined)
      environment.catch(() => {})
      await work(record, touch, environment)
      // The final record is stored and kept in memory (store.finish): this replica's waiters read it
      // from there at once; the other replicas' are woken once the queue no longer holds the record.
      this.completions.announceHere(jobId)
      await Promise.all([this.store.dequeue(jobId), this.dispatched(job)])
    } catch (err) {
      // The database was unreachable: the attempt is given up and Agenda runs the job again (backoff).
      this.abandoned.set(jobId, record.attempts)
      throw err
    } finally {
      this.completions.announce(jobId)
    }
  }

  /**
   * Removes the Agenda document of a job whose record is final (removeOnComplete is off, see the
   * constructor): by `_id` alone, which FerretDB looks up directly. Agenda's own state update after
   * the handler then finds no document, which it ignores.
   */
  private async dispatched(job: Job): Promise<void> {
    await this.agenda
      .cancel({ id: job.attrs._id })
      .catch((err: Error) => this.opts.log.warn({ err: { message: err.message } }, 'could not remove a finished job from the queue'))
  }

  /** The job's environment, from `read` when it was started already; ENVIRONMENT_NOT_FOUND when it is gone. */
  private async environmentOf(record: JobRecord, read?: Promise<JobEnvironment | null>): Promise<JobEnvironment> {
    const env = await (read ?? this.opts.environments.get(record.userId, record.environmentId))
    if (!env) throw new JobFailure('ENVIRONMENT_NOT_FOUND', 'The environment no longer exists')
    return env
  }
}
