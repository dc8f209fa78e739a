// The templates' migrations (processor-lib/src/migrations, files `migrations/*.yaml` of the
// templates tree) as generations and pushes apply them: read from the templates source once per
// templates commit; applied to the environment's stored configuration before the transform, the
// pending ones only (the ids the environment has not run). A value a migration cannot move fails the
// job (MIGRATION_FAILED, each field and reason as details): nothing is generated or pushed from a
// half-migrated configuration.
import {
  applyMigrations,
  parseMigrations,
  pendingMigrations,
  type ConfigurationChange,
  type Migration,
} from '@ies/processor-lib/migrations/index'
import { JobFailure } from '../queue/errors.ts'
import type { TemplatesSource } from './templates.ts'
import type { JobEnvironment } from './transform.ts'

/**
 * The migrations of a templates version (a pinned environment's commit or tag), default the newest,
 * in order: a pinned environment runs only those of the version it generates with.
 */
export type MigrationsSource = (version?: string) => Promise<Migration[]>

/** Reads the migrations of `source`, parsed once per templates commit. A malformed file is MIGRATION_INVALID. */
export function templatesMigrations(source: TemplatesSource): MigrationsSource {
  let cached: { commit: string; migrations: Migration[] } | undefined
  return async (version) => {
    const templates = version === undefined ? await source.load() : await source.version(version)
    // A version that cannot be found fails the generation itself (TEMPLATES_VERSION_UNAVAILABLE): none here.
    if (!templates) return []
    const { commit, inputs } = templates
    if (cached?.commit === commit) return cached.migrations
    const { migrations, problems } = parseMigrations(inputs)
    if (problems.length > 0) {
      const [p] = problems
      throw new JobFailure('MIGRATION_INVALID', `The templates' migration ${p.file} is not valid at line ${p.line}: ${p.message}`, {
        problems,
      })
    }
    cached = { commit, migrations }
    return migrations
  }
}

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
      'MIGRATION_FAILED',
      `The templates' migration ${p.migration} cannot move ${p.field}: ${p.message}${more}. Change the value, then push again; nothing was pushed.`,
      { problems: result.problems },
    )
  }
  const { configuration: c } = result
  const migrated = { ...env, region: c.region, domain: c.domain, services: c.services }
  return { env: migrated, applied: result.applied, migrations: [...stored, ...result.applied], changes: result.changes }
}
