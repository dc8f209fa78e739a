// The templates' migrations as jobs apply them: every generation and push reads its environment
// through `migrated` (in memory); a push that pushed stores the result (`storeMigrated`).
import type { FastifyBaseLogger } from 'fastify'
import type { Migration } from '@ies/processor-lib/migrations/index'
import { isDatabaseUnavailable } from '../../core/errors.ts'
import type { MigrationsSource } from '../../templates/migrations.ts'
import { migrateEnvironment, type MigratedEnvironment } from '../generation/migrations.ts'
import type { JobEnvironment } from '../generation/transform.ts'
import type { EnvironmentAccess } from './environment-access.ts'
import { JobFailure } from '../../core/job-failure.ts'
import type { JobRecord } from './store.ts'

export class JobMigrations {
  constructor(
    private readonly source: MigrationsSource | undefined,
    private readonly environments: EnvironmentAccess,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * The environment as the templates' pending migrations make it (in memory). MIGRATION_FAILED when
   * a value cannot be moved.
   */
  async migrated(env: JobEnvironment, templatesVersion: string | undefined): Promise<MigratedEnvironment> {
    const asStored = { env, applied: [], migrations: env.migrations ?? [], changes: [] }
    if (!this.source) return asStored
    let all: Migration[]
    try {
      all = await this.source(templatesVersion)
    } catch (err) {
      // The templates could not be read here (a remote processor may still reach them): generated as
      // stored, the migrations stay pending for the next push; a malformed migration still fails the job.
      if (err instanceof JobFailure || isDatabaseUnavailable(err)) throw err
      this.log.warn(
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
  async storeMigrated(record: JobRecord, templatesVersion: string | undefined): Promise<void> {
    try {
      const migrations = await this.source!(templatesVersion)
      await this.environments.storeMigrated?.(record.userId, record.environmentId, migrations, record._id)
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err
      this.log.warn({ jobId: record._id, err: { message: (err as Error).message } }, 'migrated configuration not stored after the push')
    }
  }
}
