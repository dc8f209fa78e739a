// What the environment routes share: the catalog check, the stranded check, the rules beyond the
// schema, and the environment as a response serves it.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { currentTemplatesCommit, pinnedVersions, upgradeStatus, type PushRecords } from '@ies/server/jobs/push/push-records'
import { templatesPinErrors } from '@ies/server/templates/templates-versions'
import { templatesMigrations } from '@ies/server/templates/migrations'
import { validationError, type FieldError } from '@ies/server/core/errors'
import type { Environment, EnvironmentInput } from '@ies/api/schemas/environments'
import type { Scope } from '../teams/scopes.ts'
import { catalogCheckFor, withoutOverlap, type CatalogCheck } from './catalog-check.ts'
import { toEnvironment, type EnvironmentRecord } from './record.ts'
import { credentialReferenceErrors, gitRepositoryUrlErrors, helmValuesErrors } from './rules.ts'
import { StrandedCheck } from './stranded.ts'

export interface RouteContext {
  app: FastifyInstance
  catalogCheck: CatalogCheck
  stranded: StrandedCheck
  /** The ids of the templates' migrations now (undefined when the templates cannot be read). */
  currentMigrations(request: FastifyRequest): Promise<string[] | undefined>
  /** The checks beyond the schema, with the catalog check's findings; all failures in one 400. */
  checkRules(userId: string, input: EnvironmentInput, catalogFindings: FieldError[], stored?: EnvironmentRecord): Promise<void>
  /** The environment as served one at a time, with its last push and what it is behind. */
  view(
    request: FastifyRequest,
    env: EnvironmentRecord,
    scope: Pick<Scope, 'team' | 'role'>,
    records?: Pick<PushRecords, 'last'>,
  ): Promise<Environment>
}

/** A body the schema refused: its errors, and the catalog check's on the fields the schema did not name. */
export function schemaFailure(schemaErrors: FieldError[], catalogFindings: FieldError[]) {
  return validationError([...schemaErrors, ...withoutOverlap(schemaErrors, catalogFindings)])
}

export function routeContext(app: FastifyInstance): RouteContext {
  const catalogCheck = catalogCheckFor(app)
  const stranded = new StrandedCheck()
  const migrations = templatesMigrations(app.templates)
  const credentials = app.cloudCredentials

  /**
   * The ids of the templates' migrations now: a new environment's values fit the current templates,
   * so it has run them all. Unreadable templates: none (a later push applies them; logged).
   */
  async function currentMigrations(request: FastifyRequest): Promise<string[] | undefined> {
    try {
      return (await migrations()).map((m) => m.id)
    } catch (err) {
      request.log.warn({ err: { message: (err as Error).message } }, "environments: the templates' migrations could not be read")
      return undefined
    }
  }

  /** The checks beyond the schema, with the catalog check's findings; all failures in one 400. */
  async function checkRules(userId: string, input: EnvironmentInput, catalogFindings: FieldError[], stored?: EnvironmentRecord) {
    const failures = [
      ...(await helmValuesErrors(input, app.config.yamlParseTimeoutMs)),
      ...(input.templatesPin !== stored?.templatesPin ? await templatesPinErrors(app.templates, input.templatesPin) : []),
      ...(await gitRepositoryUrlErrors(input, app.config.push.allowedHosts)),
      ...(await credentialReferenceErrors(userId, input, credentials)),
      ...catalogFindings,
    ]
    if (failures.length > 0) throw validationError(failures)
  }

  /**
   * The environment as served one at a time: with its last push and what it is behind (push-records.ts),
   * and the organisation's rules' warnings on it.
   * `records`: where its last push record is read (by default now; a read can also be started earlier).
   */
  async function view(
    request: FastifyRequest,
    env: EnvironmentRecord,
    scope: Pick<Scope, 'team' | 'role'>,
    records: Pick<PushRecords, 'last'> = app.jobs.pushing.records,
  ) {
    const templatesCommit = () => currentTemplatesCommit(app.templates, request.log)
    const [{ lastPush, behind }, catalog, drift] = await Promise.all([
      upgradeStatus(records, env, templatesCommit, pinnedVersions(app.templates)),
      catalogCheck.current(request.log),
      app.jobs.drift.last(env._id),
    ])
    const problems = stranded.of(catalog, env)
    // What the organisation's rules warn of now (a denial refused the write; docs/policies.md).
    const { warn } = await app.policies.evaluate(env as unknown as Record<string, unknown>, {
      team: scope.team?.name ?? null,
      catalog,
      log: request.log,
    })
    return {
      ...toEnvironment(env),
      ...(warn.length > 0 && { warnings: warn }),
      ...(scope.team && { team: scope.team.name }),
      role: scope.role,
      lastPush,
      behind,
      drift,
      ...(problems.length > 0 && { problems }),
    }
  }

  return { app, catalogCheck, stranded, currentMigrations, checkRules, view }
}
