// The templates' migrations (processor-lib/src/migrations; read by the templates source,
// templates/migrations.ts) as generations and pushes apply them: to the environment's stored
// configuration before the transform, the pending ones only (the ids the environment has not run).
// A value a migration cannot move fails the job (MIGRATION_FAILED, each field and reason as
// details): nothing is generated or pushed from a half-migrated configuration.
import { applyMigrations, pendingMigrations, type ConfigurationChange, type Migration } from '@ies/processor-lib/migrations/index'
import { JobFailure } from '../../core/job-failure.ts'
import type { JobEnvironment } from './transform.ts'

/** The code of a push or generation stopped by a stored value the templates refuse. */
export const MIGRATION_FAILED = 'MIGRATION_FAILED'

/** What the pending migrations make of an environment's configuration. */
export interface MigratedEnvironment<E extends JobEnvironment = JobEnvironment> {
  /** The environment with its migrated configuration (the one given when nothing was pending). */
  env: E
  /** The ids of the migrations applied now, in order (empty: none pending). */
  applied: string[]
  /** Every migration id the migrated configuration has run: the stored ones, then `applied`. */
  migrations: string[]
  changes: ConfigurationChange[]
}

/** What migrations may change: the global fields not fixed at creation, and the services. */
const configurationOf = (env: JobEnvironment) => ({
  region: env.region,
  domain: env.domain ?? '',
  services: env.services ?? {},
})

/**
 * Applies the migrations `env` has not run to it (in memory). A value a migration cannot move throws
 * MIGRATION_FAILED naming the field (the first in the message, all in the details).
 */
export function migrateEnvironment<E extends JobEnvironment>(env: E, all: readonly Migration[]): MigratedEnvironment<E> {
  const stored = env.migrations ?? []
  const pending = pendingMigrations(all, stored)
  if (pending.length === 0) return { env, applied: [], migrations: stored, changes: [] }
  const result = applyMigrations(configurationOf(env), pending)
  if (result.problems.length > 0) {
    const [p] = result.problems
    const more = result.problems.length > 1 ? ` (and ${result.problems.length - 1} more)` : ''
    throw new JobFailure(
      MIGRATION_FAILED,
      `The templates' migration ${p.migration} cannot move ${p.field}: ${p.message}${more}. Change the value, then push again; nothing was pushed.`,
      { problems: result.problems },
    )
  }
  const { configuration: c } = result
  const migrated = { ...env, region: c.region, domain: c.domain, services: c.services }
  return { env: migrated, applied: result.applied, migrations: [...stored, ...result.applied], changes: result.changes }
}
