// What a job's work (generate-work.ts, push-work.ts) is given by the runner (runner.ts): the stores,
// the configuration, the environment read, the migrations step, the failure recording.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../../config.ts'
import type { TemplateProcessor } from '../generation/generation.ts'
import type { JobEnvironment, ProcessorInput } from '../generation/transform.ts'
import type { PushRecords } from '../push/push-records.ts'
import type { DataHoldersSource } from '../plan/data-holders.ts'
import type { DriftRecords } from '../plan/drift-records.ts'
import type { WarmDirs } from '../plan/warm-dirs.ts'
import type { ArchiveStore } from './archives.ts'
import type { CompletionBus } from './completions.ts'
import type { EnvironmentAccess } from './environment-access.ts'
import type { JobMigrations } from './job-migrations.ts'
import type { PushLocks } from './push-lock.ts'
import type { JobError, JobRecord, JobStore } from './store.ts'

/** Keeps the job's lock fresh (written at most once a tenth of a lock lifetime). */
export type Touch = () => Promise<void>

/** What a job's work is given: its record, the lock keeper, and the environment's read, already started. */
export type Work = (record: JobRecord, touch: Touch, env: Promise<JobEnvironment>) => Promise<void>

export interface JobContext {
  store: JobStore
  archives: ArchiveStore
  config: Config
  log: FastifyBaseLogger
  /** What generation runs: processor-lib in process, or the remote processor service (processor-client.ts). */
  processor: TemplateProcessor
  environments: EnvironmentAccess
  migrations: JobMigrations
  completions: CompletionBus
  pushLocks: PushLocks
  /** What the push job needs beside the job (push-job.ts). */
  pushing: { records: PushRecords; config: Config }
  /** The last drift check of each environment (plan/drift-records.ts). */
  drift: DriftRecords
  /** The templates' data-holding resource types (plans mark them, pushes guard them: jobs/plan/). */
  dataHolders: DataHoldersSource
  /** The initialised Terraform directories plans reuse (plan/warm-dirs.ts). */
  warmDirs: WarmDirs
  /** The job's environment, from `read` when it was started already; ENVIRONMENT_NOT_FOUND when it is gone. */
  environmentOf(record: JobRecord, read?: Promise<JobEnvironment | null>): Promise<JobEnvironment>
  /** Stores the job's error and logs what the operator needs (job-failures.ts); `before` gets the error as stored first. */
  fail(
    record: JobRecord,
    err: unknown,
    input: ProcessorInput | undefined,
    secrets?: (string | null)[],
    before?: (error: JobError) => Promise<void>,
  ): Promise<void>
}

/** The work, with `keep` called every third of a lock lifetime while it runs. */
export async function keptAlive<T>(lockLifetimeMs: number, keep: () => Promise<unknown>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void keep().catch(() => {}), Math.max(50, lockLifetimeMs / 3))
  try {
    return await work()
  } finally {
    clearInterval(timer)
  }
}

/** The generation record's migration ids: only when there are some (a record without any stays as it was). */
export const recorded = (migrations: string[]) => (migrations.length > 0 ? { migrations } : {})
