// The parts of the push rule (server/src/jobs/push/push-rule.ts) that need the app: the stored values
// an environment's templates refuse once its pending migrations have moved them (`refusedValuesOf`),
// and the configuration a push generates from (`pushedConfigurationOf`), which the organisation's rules judge.
import { migrateEnvironment } from '@ies/server/jobs/generation/migrations'
import { PUSHED_PROVIDER, type RefusedValues } from '@ies/server/jobs/push/push-rule'
import { JobFailure } from '@ies/server/core/job-failure'
import { templatesMigrations } from '@ies/server/templates/migrations'
import type { TypedCatalog } from '@ies/processor-lib/contract/view'
import type { FastifyInstance } from 'fastify'
import { LRUCache } from 'lru-cache'
import type { EnvironmentRecord } from '../environments/record.ts'

/** Logged (with the error's message) when an environment's stored values cannot be judged. */
const UNCHECKED = 'push: stored values not checked against the templates'

/** The environment as the pending migrations of its templates version make it (as a push job migrates it); throws as they do. */
export type Migrate = (env: EnvironmentRecord) => Promise<EnvironmentRecord>

export function migrateOf(app: FastifyInstance): Migrate {
  const migrations = templatesMigrations(app.templates)
  return async (env) => migrateEnvironment(env, await migrations(env.templatesPin)).env
}

/**
 * What a push of the environment generates from: the configuration after its pending migrations (the
 * organisation's rules judge this before a push, docs/policies.md); as stored when the migrations
 * cannot run here (the push job then fails naming why).
 */
export function pushedConfigurationOf(app: FastifyInstance, migrate: Migrate): (env: EnvironmentRecord) => Promise<EnvironmentRecord> {
  return async (env) => {
    if (env.provider !== PUSHED_PROVIDER) return env
    try {
      return await migrate(env)
    } catch (err) {
      if (!(err instanceof JobFailure)) app.log.warn({ err: { message: (err as Error).message } }, 'push: migrations not run for the rules')
      return env
    }
  }
}

/**
 * `RefusedValues` of the app: the environment as the pending migrations of its templates version
 * make it (as a push job migrates it), judged by the environments' one rule (`storedValueProblems`)
 * against that version's catalog: the current catalog (`app.catalog.view`, as GET /:id judges), or the
 * pinned version's (`app.catalog.viewAt`, the same rule). A migration that cannot move a value is left to the push job (MIGRATION_FAILED,
 * the migration named); templates that cannot be read are judged nowhere (the job reports them).
 */
export function refusedValuesOf(app: FastifyInstance, migrate: Migrate): RefusedValues<EnvironmentRecord> {
  // A pinned version's document is built from its files on each read: its view is kept per commit.
  const pinned = new LRUCache<string, { view: TypedCatalog | null }>({ max: 16 })
  async function catalogOf(pin: string | undefined): Promise<TypedCatalog | null> {
    if (!pin) return app.catalog.view(app.log, { unavailable: UNCHECKED })
    const templates = await app.templates.version(pin)
    if (!templates) return null
    let kept = pinned.get(templates.commit)
    if (!kept) pinned.set(templates.commit, (kept = { view: app.catalog.viewAt(templates) }))
    return kept.view
  }
  return async (env) => {
    if (env.provider !== PUSHED_PROVIDER) return []
    let catalog: TypedCatalog | null
    let migrated: EnvironmentRecord
    try {
      catalog = await catalogOf(env.templatesPin)
      if (!catalog) return []
      migrated = await migrate(env)
    } catch (err) {
      if (err instanceof JobFailure) return []
      app.log.warn({ err: { message: (err as Error).message } }, UNCHECKED)
      return []
    }
    return app.environments.storedValueProblems(migrated, catalog)
  }
}
