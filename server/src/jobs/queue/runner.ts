// Agenda 6 on the service's database (agenda-backend.ts, collection `agendaJobs`) dispatches
// the `generate` and `push` jobs; the job record in `jobs` (store.ts) is what the API serves. A new
// job starts at once through the notification channel; a job whose worker died is locked again by
// any replica once its lock is older than JOBS_LOCK_LIFETIME_MS (found on the next JOBS_PROCESS_EVERY_MS scan).
import os from 'node:os'
import { Agenda, exponential, type Job } from 'agenda'
import type { Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import { unzipToFiles, type TreeFile } from '@ies/processor-lib'
import type { Config } from '../../config.ts'
import { isDatabaseUnavailable } from '../../core/errors.ts'
import type { JobEnvironment } from '../generation/transform.ts'
import { queueBackend } from './agenda-backend.ts'
import { ArchiveStore, UNZIP_LIMITS, type ArchiveId } from './archives.ts'
import { CompletionBus } from './completions.ts'
import { checkDestination } from '../push/destination.ts'
import { isPemPrivateKey, PEM_OVER_HTTPS_MESSAGE } from '../push/deploy-key.ts'
import { jobErrorOf, JobFailure } from './errors.ts'
import { credentialSecrets } from '../../core/redaction.ts'
import { archiveOf, generate, type Generated, type TemplateProcessor } from '../generation/generation.ts'
import { notificationChannel, type WakeableChannel } from './notifications.ts'
import { pushEnvironment, type LifecyclePushParams } from '../push/push-job.ts'
import { PushLocks } from './push-lock.ts'
import { PushRecords } from '../push/push-records.ts'
import { sweep } from './retention.ts'
import {
  JobStore,
  type GenerateParams,
  type GenerateResult,
  type JobRecord,
  type JobType,
  type PushParams,
  type PushResult,
} from './store.ts'
import { processorInput, templatesVersionOf, type ProcessorInput } from '../generation/transform.ts'
import { migrateEnvironment, type MigratedEnvironment } from '../generation/migrations.ts'
import type { MigrationsSource } from '../../templates/migrations.ts'
import type { Migration } from '@ies/processor-lib/migrations/index'

export interface EnvironmentAccess {
  get(userId: string, id: string): Promise<JobEnvironment | null>
  /** The decrypted deploy key; only the push job asks for it. */
  getDeployKey(userId: string, id: string): Promise<string | null>
  /**
   * Stores the configuration the migrations the environment has not run make of it (a versioned
   * write of the stored record, like any change) and their ids; only a push that pushed asks.
   */
  storeMigrated?(userId: string, id: string, migrations: readonly Migration[], jobId?: string): Promise<void>
}

/**
 * An Agenda job's data: the job record's id, and its owner and environment (absent on jobs queued by
 * older versions), so that the environment is read while the job is being started.
 */
interface QueueData {
  jobId: string
  userId?: string
  environmentId?: string
}

/** What a job's work is given: its record, the lock keeper, and the environment's read, already started. */
type Work = (record: JobRecord, touch: () => Promise<void>, env: Promise<JobEnvironment>) => Promise<void>

export interface JobRunnerOptions {
  db: Db
  config: Config
  log: FastifyBaseLogger
  /** What generation runs: processor-lib in process, or the remote processor service (processor-client.ts). */
  processor: TemplateProcessor
  environments: EnvironmentAccess
  /** The templates' migrations (generation/migrations.ts); none: environments are generated as stored. */
  migrations?: MigrationsSource
}

/** `<environment>-<format>-<short commit>.zip` */
export function archiveName(environmentName: string, format: string, commit: string): string {
  const short = commit.replace(/^sha256-/, '').slice(0, 7)
  return `${environmentName}-${format}-${short}.zip`
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
  /** What the push job needs beside the job (push-job.ts). */
  readonly pushing: { records: PushRecords; config: Config }
  /** One push per environment at a time. */
  private readonly pushLocks: PushLocks

  constructor(private readonly opts: JobRunnerOptions) {
    this.store = new JobStore(opts.db)
    this.archives = new ArchiveStore(opts.db)
    this.completions = new CompletionBus(opts.config.rateLimit.redisUrl, (err) =>
      opts.log.warn({ err: { message: err.message } }, 'job completion channel error'),
    )
    this.pushing = { records: new PushRecords(opts.db), config: opts.config }
    this.pushLocks = new PushLocks(opts.db)
    const { jobs } = opts.config
    this.channel = notificationChannel({ notify: jobs.notify, redisUrl: opts.config.rateLimit.redisUrl })
    this.agenda = new Agenda({
      name: `${os.hostname()}-${process.pid}`,
      backend: queueBackend(opts.db),
      notificationChannel: this.channel,
      processEvery: jobs.processEveryMs,
      defaultConcurrency: jobs.concurrency,
      maxConcurrency: jobs.concurrency * 2,
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
    this.agenda.define<QueueData>('generate', (job) => this.run(job, (...args) => this.runGenerate(...args)), definition)
    this.agenda.define<QueueData>('push', (job) => this.run(job, (...args) => this.runPush(...args)), definition)
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

  /** Removes the finished jobs (and archives) retention lets go (retention.ts); what it removed. */
  sweep(): Promise<{ jobs: number; claims: number }> {
    const { retention, lockLifetimeMs } = this.opts.config.jobs
    // A claim matters while its attempt may still be running or retried: far below the age limit.
    return sweep(this.store, this.archives, retention, Math.max(retention.maxAgeMs, lockLifetimeMs * 10))
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
  }

  /** Stores the job record and queues it; the record as queued. */
  async enqueue(type: JobType, userId: string, environmentId: string, params: GenerateParams | PushParams): Promise<JobRecord> {
    const record = await this.store.create(type, userId, environmentId, params)
    await this.agenda.now<QueueData>(type, { jobId: record._id, userId, environmentId })
    return record
  }

  /**
   * The record once it has finished, or as it is after `timeoutMs` (null: not the user's job).
   * See `waitForAny`.
   */
  async waitFor(userId: string, jobId: string, timeoutMs: number): Promise<JobRecord | null> {
    return (await this.waitForAny(userId, [jobId], timeoutMs))[0]
  }

  /**
   * The records (null for an id that is not one of the user's jobs), once one of them has finished
   * or is unknown, or as they are after `timeoutMs`. Woken by a job's completion announcement
   * (completions.ts); re-read otherwise, in case an announcement was lost with a replica, after a
   * sixteenth of JOBS_WAIT_RECHECK_MS, then twice as long each time up to all of it (0.3, 0.6, 1.2,
   * 2.5, 5, 5 ... s by default).
   */
  async waitForAny(userId: string, jobIds: readonly string[], timeoutMs: number): Promise<(JobRecord | null)[]> {
    const deadline = Date.now() + timeoutMs
    const { waitRecheckMs } = this.opts.config.jobs
    let pause = waitRecheckMs / 16
    for (;;) {
      const left = deadline - Date.now()
      // Listening before the reads: an announcement between a read and the wait is not lost.
      const waiters = jobIds.map((id) => this.completions.waiter(id, Math.max(0, Math.min(left, pause, waitRecheckMs))))
      const cancel = () => waiters.forEach((w) => w.cancel())
      const records = await Promise.all(jobIds.map((id) => this.store.get(userId, id))).catch((err) => {
        cancel()
        throw err
      })
      if (left <= 0 || records.some((r) => !r || r.status === 'succeeded' || r.status === 'failed')) {
        cancel()
        return records
      }
      await Promise.race(waiters.map((w) => w.woken))
      cancel()
      pause *= 2
    }
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
      await work(record, touch, this.environmentOf(record, ownRead ? early : undefined))
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

  /**
   * Stores the job's error. The original error (message, code, cause chain; redacted like the job's
   * error) is logged for the operator: at error level when unexpected (the user sees only
   * INTERNAL_ERROR), at warn level when something outside failed (a Git server: GIT_UNREACHABLE, ...).
   */
  private async fail(record: JobRecord, err: unknown, input: ProcessorInput | undefined, secrets: (string | null)[] = []): Promise<void> {
    // Not the job's fault: the attempt is run again once the database answers (see `run`).
    if (isDatabaseUnavailable(err)) throw err
    const { error, unexpected, cause } = jobErrorOf(err, secrets)
    if (cause) {
      // Not under `err`: pino's error serializer would flatten the cause chain and drop its codes.
      const entry = { jobId: record._id, type: record.type, code: error.code, error: cause }
      if (unexpected) this.opts.log.error(entry, 'job failed unexpectedly')
      else this.opts.log.warn(entry, `job failed: ${error.message}`)
    }
    await this.store.fail(record, error, input)
  }

  private async runGenerate(record: JobRecord, touch: () => Promise<void>, environment: Promise<JobEnvironment>): Promise<void> {
    const params = record.params as GenerateParams
    let input: ProcessorInput | undefined
    try {
      const stored = await environment
      const { env, migrations } = await this.migrated(stored, templatesVersionOf(stored))
      input = processorInput(env)
      const generated = await this.generating(input, params, touch, record.environmentId, migrations, templatesVersionOf(env))
      const zip = await archiveOf(generated)
      await touch() // the lock stays ours while the archive is stored
      const filename = archiveName(env.name, params.format, generated.templatesCommit)
      if (record.attempts > 1) await this.archives.removeForJob(record._id) // left by an attempt whose worker died
      const archive = await this.archives.put(record._id, filename, zip)
      const result: GenerateResult = {
        format: params.format,
        options: params.options,
        templatesCommit: generated.templatesCommit,
        fileCount: generated.files.length,
        warnings: generated.warnings,
        archive: { filename, size: archive.size, sha256: archive.sha256 },
      }
      await this.store.succeed(record, result, { archiveId: archive.id, processorInput: input })
    } catch (err) {
      await this.fail(record, err, input)
    }
  }

  /**
   * The generation, with the job's lock kept fresh while it runs: a remote processor may take longer
   * than a lock lifetime (a clone of a large templates repository), and the job must not be taken
   * over meanwhile.
   */
  private generating(
    input: ProcessorInput,
    params: GenerateParams,
    touch: () => Promise<unknown>,
    environmentId: string,
    migrations: string[],
    templatesVersion: string | undefined,
  ): Promise<Generated> {
    return this.keptAlive(touch, () =>
      generate({
        input,
        format: params.format,
        options: params.options,
        processor: this.opts.processor,
        environmentId,
        ...recorded(migrations),
        templatesVersion,
      }),
    )
  }

  /** The work, with `keep` called every third of a lock lifetime while it runs. */
  private async keptAlive<T>(keep: () => Promise<unknown>, work: () => Promise<T>): Promise<T> {
    const timer = setInterval(() => void keep().catch(() => {}), Math.max(50, this.opts.config.jobs.lockLifetimeMs / 3))
    try {
      return await work()
    } finally {
      clearInterval(timer)
    }
  }

  /**
   * Waits until the push job holds its environment's push lock (push-lock.ts), keeping its own lock
   * fresh meanwhile; woken when the holder finishes, else it looks again after 0.1, 0.2 ... 2 s.
   * Whether it had to wait.
   */
  private async pushTurn(record: JobRecord, keep: () => Promise<unknown>): Promise<boolean> {
    const { lockLifetimeMs } = this.opts.config.jobs
    let pause = 100
    for (let waited = false; ; waited = true) {
      const holder = await this.pushLocks.take(record.environmentId, record._id, lockLifetimeMs)
      if (holder === null) return waited
      if (!waited) this.opts.log.info({ jobId: record._id, waitingFor: holder }, "push waits for the environment's running push")
      const waiter = this.completions.waiter(holder, Math.min(pause, lockLifetimeMs / 3))
      await waiter.woken
      waiter.cancel()
      pause = Math.min(pause * 2, 2000)
      await keep()
    }
  }

  /**
   * The environment as the templates' pending migrations make it (in memory): every generation and
   * push reads the environment through here. MIGRATION_FAILED when a value cannot be moved.
   */
  private async migrated(env: JobEnvironment, templatesVersion: string | undefined): Promise<MigratedEnvironment> {
    const asStored = { env, applied: [], migrations: env.migrations ?? [], changes: [] }
    if (!this.opts.migrations) return asStored
    let all: Migration[]
    try {
      all = await this.opts.migrations(templatesVersion)
    } catch (err) {
      // The templates could not be read here (a remote processor may still reach them): generated as
      // stored, the migrations stay pending for the next push; a malformed migration still fails the job.
      if (err instanceof JobFailure || isDatabaseUnavailable(err)) throw err
      this.opts.log.warn(
        { err: { message: (err as Error).message } },
        "the templates' migrations could not be read; generating from the stored configuration",
      )
      return asStored
    }
    return migrateEnvironment(env, all)
  }

  /**
   * After a push: the migrated configuration and the migration ids stored on the environment. The
   * push stands if this fails (logged): the next push applies the same migrations again.
   */
  private async storeMigrated(record: JobRecord, templatesVersion: string | undefined): Promise<void> {
    try {
      const migrations = await this.opts.migrations!(templatesVersion)
      await this.opts.environments.storeMigrated?.(record.userId, record.environmentId, migrations, record._id)
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err
      this.opts.log.warn(
        { jobId: record._id, err: { message: (err as Error).message } },
        'migrated configuration not stored after the push',
      )
    }
  }

  /** The files of an earlier successful generation of the same environment, read back from its archive. */
  private async filesOfGeneration(record: JobRecord, generationJobId: string): Promise<{ files: TreeFile[]; templatesCommit: string }> {
    const generation = await this.store.get(record.userId, generationJobId)
    if (
      !generation ||
      generation.type !== 'generate' ||
      generation.environmentId !== record.environmentId ||
      generation.status !== 'succeeded' ||
      !generation.archiveId
    ) {
      throw new JobFailure('GENERATION_NOT_USABLE', 'The given generation job is not a successful generation of this environment')
    }
    const inputs = await unzipToFiles(await this.archives.read(generation.archiveId as ArchiveId), UNZIP_LIMITS)
    return { files: inputs, templatesCommit: (generation.result as GenerateResult).templatesCommit }
  }

  /**
   * A push (not a dry run) runs alone among its environment's pushes (pushTurn), and reads the
   * environment once its turn has come; its locks (the job's and the environment's push lock) are
   * kept fresh for as long as it runs, the Git part included.
   */
  private async runPush(record: JobRecord, touch: () => Promise<void>, environment: Promise<JobEnvironment>): Promise<void> {
    const params = record.params as LifecyclePushParams
    const exclusive = params.dryRun !== true
    const { environmentId, _id: jobId } = record
    const keep = () => Promise.all([touch(), exclusive && this.pushLocks.refresh(environmentId, jobId)])
    let deployKey: string | null = null
    let input: ProcessorInput | undefined
    try {
      await this.keptAlive(keep, async () => {
        if (exclusive && (await this.pushTurn(record, keep))) {
          environment.catch(() => {})
          environment = this.environmentOf(record)
        }
        const stored = await environment
        const migrated = await this.migrated(stored, templatesVersionOf(stored, params.templatesVersion))
        const { env } = migrated
        const repository = env.gitRepository
        if (!repository?.url) throw new JobFailure('NO_GIT_REPOSITORY', 'The environment has no Git repository')
        input = processorInput(env)
        deployKey = await this.opts.environments.getDeployKey(record.userId, environmentId)
        if (!deployKey) throw new JobFailure('NO_DEPLOY_KEY', 'The environment has no deploy key to push with')
        if (isPemPrivateKey(deployKey)) throw new JobFailure('DEPLOY_KEY_NOT_USABLE', PEM_OVER_HTTPS_MESSAGE)
        const { files, templatesCommit } = params.generationJobId
          ? await this.filesOfGeneration(record, params.generationJobId)
          : await generate({
              input,
              format: params.format,
              options: params.options,
              processor: this.opts.processor,
              environmentId,
              ...recorded(migrated.migrations),
              templatesVersion: templatesVersionOf(env, params.templatesVersion),
            })
        await checkDestination(repository.url, this.opts.config.push.allowedHosts)
        const result = await pushEnvironment({
          ...this.pushing,
          job: record,
          env,
          url: repository.url,
          branch: repository.branch || undefined,
          deployKey,
          files,
          templatesCommit,
          input,
        })
        if (migrated.applied.length > 0) {
          Object.assign(result, { configurationChange: { migrations: migrated.applied, changes: migrated.changes } })
          if (!params.dryRun) await this.storeMigrated(record, templatesVersionOf(stored, params.templatesVersion))
        }
        await this.store.succeed(record, result as PushResult, { processorInput: input })
      })
    } catch (err) {
      await this.fail(record, err, input, credentialSecrets(this.opts.config.push.username, deployKey))
    } finally {
      if (exclusive) await this.pushLocks.release(environmentId, jobId).catch(() => {})
    }
  }
}

/** The generation record's migration ids: only when there are some (a record without any stays as it was). */
const recorded = (migrations: string[]) => (migrations.length > 0 ? { migrations } : {})
