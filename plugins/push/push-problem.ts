// What makes an environment pushable at all: one rule for POST /:id/push and the bulk upgrade.
// A Git repository, an allowed destination, a deploy key, and stored values its templates accept
// once the pending migrations have moved them (`refusedValues`).
import { checkDestination, DestinationError, urlProblem } from '@ies/server/jobs/push/destination'
import { AppError, fieldError, type FieldError } from '@ies/server/core/errors'
import { migrateEnvironment, MIGRATION_FAILED } from '@ies/server/jobs/generation/migrations'
import { JobFailure } from '@ies/server/core/job-failure'
import { templatesMigrations } from '@ies/server/templates/migrations'
import type { Templates } from '@ies/server/templates/source'
import { buildCatalog, DEFAULT_PARAMS_FILES, languageOf } from '@ies/processor-lib'
import { catalogView, type TypedCatalog } from '@ies/processor-lib/contract/view'
import type { FastifyInstance } from 'fastify'
import { LRUCache } from 'lru-cache'
import type { EnvironmentRecord } from '../environments/record.ts'

export interface PushProblem {
  field: string
  message: string
  /** The stored values the templates refuse (MIGRATION_FAILED); absent for the destination's problems (VALIDATION_ERROR). */
  refused?: FieldError[]
}

/**
 * The stored values of an environment that its templates refuse after its pending migrations (the
 * catalog and migrations of its templates version: its pin, else the newest); none when they cannot be judged.
 */
export type RefusedValues = (env: EnvironmentRecord) => Promise<FieldError[]>

/** Why the environment cannot be pushed, as the field and sentence of a 400 (or a 422 for refused values); null when it can. */
export async function pushProblem(
  env: EnvironmentRecord,
  allowedHosts: readonly string[],
  refusedValues?: RefusedValues,
): Promise<PushProblem | null> {
  const url = env.gitRepository?.url
  if (!url) return { field: 'gitRepository', message: 'the environment has no Git repository to push to' }
  const problem = urlProblem(url, allowedHosts)
  if (problem) return { field: 'gitRepository.url', message: problem }
  if (!env.deployKey) return { field: 'gitRepository.deployKey', message: 'the environment has no deploy key to push with' }
  const refused = (await refusedValues?.(env)) ?? []
  if (refused.length > 0) {
    const [first] = refused
    const more = refused.length > 1 ? ` (and ${refused.length - 1} more)` : ''
    const message = `The templates refuse the stored value of ${first.field}: ${first.message}${more}. Change the value, then push again; nothing was pushed.`
    return { field: first.field, message, refused }
  }
  try {
    await checkDestination(url, allowedHosts)
  } catch (err) {
    if (err instanceof DestinationError) return { field: 'gitRepository.url', message: err.message }
    throw err
  }
  return null
}

/**
 * The error a refused push answers: 422 MIGRATION_FAILED with every refused field in
 * `details.problems` (as a push job that no migration can move fails), else 400 on the field.
 */
export function pushRefusal(problem: PushProblem): AppError {
  if (problem.refused) return new AppError(422, MIGRATION_FAILED, problem.message, { problems: problem.refused })
  return fieldError(problem.field, problem.message)
}

/** The typed catalog of a templates version, from its parameter-values file; null when it has none. */
function catalogAt(templates: Templates): TypedCatalog | null {
  const paramsFile = DEFAULT_PARAMS_FILES.aws
  const file = templates.inputs.find((f) => f.path === paramsFile)
  const lang = languageOf(paramsFile)
  if (!file || !lang) return null
  const doc = buildCatalog(paramsFile, file.content.toString('utf8'), lang, templates.commit)
  return doc.schemaVersion === 1 ? catalogView(doc).catalog : null
}

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
    if (env.provider !== 'aws') return env
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
 * against that version's catalog: the current catalog (`app.catalog`, as GET /:id judges), or the
 * pinned version's. A migration that cannot move a value is left to the push job (MIGRATION_FAILED,
 * the migration named); templates that cannot be read are judged nowhere (the job reports them).
 */
export function refusedValuesOf(app: FastifyInstance, migrate: Migrate): RefusedValues {
  const pinned = new LRUCache<string, { view: TypedCatalog | null }>({ max: 16 })
  async function catalogOf(pin: string | undefined): Promise<TypedCatalog | null> {
    if (!pin) {
      const doc = (await app.catalog.get()).catalog
      return doc?.schemaVersion === 1 ? catalogView(doc).catalog : null
    }
    const templates = await app.templates.version(pin)
    if (!templates) return null
    let kept = pinned.get(templates.commit)
    if (!kept) pinned.set(templates.commit, (kept = { view: catalogAt(templates) }))
    return kept.view
  }
  return async (env) => {
    if (env.provider !== 'aws') return []
    let catalog: TypedCatalog | null
    let migrated: EnvironmentRecord
    try {
      catalog = await catalogOf(env.templatesPin)
      if (!catalog) return []
      migrated = await migrate(env)
    } catch (err) {
      if (err instanceof JobFailure) return []
      app.log.warn({ err: { message: (err as Error).message } }, 'push: stored values not checked against the templates')
      return []
    }
    return app.environments.storedValueProblems(migrated, catalog)
  }
}
