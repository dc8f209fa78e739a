// The job engine (server/src/jobs/): generation and push jobs (concurrency, locks, polling, waiting
// for a job, retention), and Terraform plans and drift checks (jobs/plan/).
import { int, optional, str, type Env } from './read.ts'

/** Generation and push jobs (server/src/jobs/). */
export interface JobsSettings {
  /** JOBS_CONCURRENCY: jobs of one type (generate, push) run at once on one replica. */
  concurrency: number
  /** JOBS_LOCK_LIFETIME_MS: a running job whose worker stops refreshing its lock this long is picked up by another. */
  lockLifetimeMs: number
  /** JOBS_PROCESS_EVERY_MS: how often a replica scans for due or abandoned jobs (new jobs start at once by notification). */
  processEveryMs: number
  /** JOBS_NOTIFY: `false` turns the immediate notification channel off (polling only; benchmarks). */
  notify: boolean
  /** JOBS_PROCESS: `false` makes an API-only replica: it queues jobs (and notifies) but runs none. */
  process: boolean
  /** JOBS_WAIT_TIMEOUT_MS: longest a `?wait=true` generation request waits before answering 202. */
  waitTimeoutMs: number
  /** RETENTION_KEEP_PER_ENVIRONMENT, RETENTION_MAX_AGE_MS, RETENTION_SWEEP_EVERY_MS: finished jobs kept (server/src/jobs/queue/retention.ts). */
  retention: { keepPerEnvironment: number; maxAgeMs: number; sweepEveryMs: number }
  /** JOBS_WAIT_RECHECK_MS: longest a waiter goes without re-reading its job (it is woken by the job's completion announcement). */
  waitRecheckMs: number
}

/** Terraform plans and drift checks (server/src/jobs/plan/; docs/operations.md, "Terraform for plans"). */
export interface PlanSettings {
  /** TERRAFORM_BIN: the Terraform executable (default `terraform` on PATH). */
  terraformBin: string
  /** TERRAFORM_CLI_CONFIG: the CLI configuration Terraform runs with (a provider mirror); unset: Terraform's defaults. */
  cliConfigFile: string | undefined
  /** TERRAFORM_PLUGIN_CACHE_DIR: the providers' cache shared by every plan (a warm init downloads nothing). */
  pluginCacheDir: string | undefined
  /** PLAN_TIMEOUT_MS: longest one Terraform command may run. */
  timeoutMs: number
  /** PLAN_OUTPUT_CAP_BYTES: most output one Terraform command may write. */
  outputCapBytes: number
  /** PLAN_CONCURRENCY: plans (and drift checks) of one replica at once, apart from generations and pushes. */
  concurrency: number
  /** Scheduled drift checks (environments' `driftCheckHours`; plugins/plans/drift-schedule.ts). */
  driftSchedule: {
    /** DRIFT_SCHEDULE_SCAN_MS: how often a replica that runs jobs looks for environments due a check. */
    scanEveryMs: number
    /** DRIFT_SCHEDULE_CONCURRENCY: scheduled checks queued or running at once (counted from the database), so they never fill the plan slots. */
    concurrency: number
  }
}

export function readJobs(env: Env): JobsSettings {
  return {
    concurrency: Math.max(1, int(env, 'JOBS_CONCURRENCY', 8)),
    lockLifetimeMs: int(env, 'JOBS_LOCK_LIFETIME_MS', 60_000),
    processEveryMs: Math.max(50, int(env, 'JOBS_PROCESS_EVERY_MS', 5_000)),
    notify: str(env, 'JOBS_NOTIFY', 'true') !== 'false',
    process: str(env, 'JOBS_PROCESS', 'true') !== 'false',
    waitTimeoutMs: int(env, 'JOBS_WAIT_TIMEOUT_MS', 30_000),
    waitRecheckMs: Math.max(250, int(env, 'JOBS_WAIT_RECHECK_MS', 5_000)),
    retention: {
      keepPerEnvironment: Math.max(1, int(env, 'RETENTION_KEEP_PER_ENVIRONMENT', 20)),
      maxAgeMs: int(env, 'RETENTION_MAX_AGE_MS', 30 * 24 * 3600_000),
      sweepEveryMs: Math.max(1000, int(env, 'RETENTION_SWEEP_EVERY_MS', 3600_000)),
    },
  }
}

export function readPlan(env: Env): PlanSettings {
  return {
    terraformBin: str(env, 'TERRAFORM_BIN', 'terraform'),
    cliConfigFile: optional(env, 'TERRAFORM_CLI_CONFIG'),
    pluginCacheDir: optional(env, 'TERRAFORM_PLUGIN_CACHE_DIR'),
    timeoutMs: Math.max(1000, int(env, 'PLAN_TIMEOUT_MS', 10 * 60_000)),
    outputCapBytes: Math.max(1024 * 1024, int(env, 'PLAN_OUTPUT_CAP_BYTES', 128 * 1024 * 1024)),
    concurrency: Math.max(1, int(env, 'PLAN_CONCURRENCY', 2)),
    driftSchedule: {
      scanEveryMs: Math.max(50, int(env, 'DRIFT_SCHEDULE_SCAN_MS', 60_000)),
      concurrency: Math.max(1, int(env, 'DRIFT_SCHEDULE_CONCURRENCY', 1)),
    },
  }
}
