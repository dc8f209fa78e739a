// /api/environments: the caller's stored environment configurations (see README.md beside this file).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ListEnvelope, ok, page } from '@ies/server/core/envelope'
import { currentTemplatesCommit, pinnedVersions, upgradeStatus, type PushRecords } from '@ies/server/jobs/push/push-records'
import { templatesPinErrors } from '@ies/server/templates/templates-versions'
import { detailsFromValidation, notFound, validationError, type FieldError } from '@ies/server/core/errors'
import { catalogCheckFor, withoutOverlap } from './catalog-check.ts'
import { StrandedCheck } from './stranded.ts'
import { templatesMigrations } from '@ies/server/templates/migrations'
import { mergePatch } from './merge-patch.ts'
import type { Scope } from '../teams/scopes.ts'
import { inputOf, toEnvironment, type DeployKeyChange, type EnvironmentRecord } from './repository.ts'
import { credentialReferenceErrors, gitRepositoryUrlErrors, helmValuesErrors } from './rules.ts'
import { Environment, EnvironmentInput, EnvironmentPatch, EnvironmentSummary, IdParams, ListQuery } from './schemas.ts'
import { EntryParams } from '../history/schemas.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 413: ErrorBody }

const IMMUTABLE = ['name', 'globalPrefix'] as const

const environments: FastifyPluginAsyncTypebox = async (app) => {
  const { environments: repo, cloudCredentials: credentials } = app
  const catalogCheck = catalogCheckFor(app)
  /** The catalog check's findings on a create body, made on the body as sent (preValidation). */
  const createFindings = new WeakMap<FastifyRequest, FieldError[]>()
  const stranded = new StrandedCheck()
  const migrations = templatesMigrations(app.templates)

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

  /** A body the schema refused: its errors, and the catalog check's on the fields the schema did not name. */
  function schemaFailure(schemaErrors: FieldError[], catalogFindings: FieldError[]) {
    return validationError([...schemaErrors, ...withoutOverlap(schemaErrors, catalogFindings)])
  }

  /**
   * The environment as served one at a time: with its last push and what it is behind (push-records.ts).
   * `records`: where its last push record is read (by default now; a read can also be started earlier).
   */
  async function view(
    request: FastifyRequest,
    env: EnvironmentRecord,
    scope: Pick<Scope, 'team' | 'role'>,
    records: Pick<PushRecords, 'last'> = app.jobs.pushing.records,
  ) {
    const templatesCommit = () => currentTemplatesCommit(app.templates, request.log)
    const [{ lastPush, behind }, catalog] = await Promise.all([
      upgradeStatus(records, env, templatesCommit, pinnedVersions(app.templates)),
      catalogCheck.current(request.log),
    ])
    const problems = stranded.of(catalog, env)
    return {
      ...toEnvironment(env),
      ...(scope.team && { team: scope.team.name }),
      role: scope.role,
      lastPush,
      behind,
      ...(problems.length > 0 && { problems }),
    }
  }

  app.get('/', { schema: { querystring: ListQuery, response: { 200: ListEnvelope(EnvironmentSummary), ...errors } } }, async (request) => {
    // List rows straight from the caller's and their teams' summaries (docs/internals/data-and-scale.md);
    // records are read (by _id) only to judge rows whose stranded state is not cached.
    const { items, total } = await repo.listRows(request.principal, request.query)
    const catalog = await catalogCheck.current(request.log)
    const problems = await stranded.rows(catalog, items, (ids) => repo.records(ids))
    const rows = items.map((e) => {
      const found = problems.get(e.id) ?? []
      return {
        ...e,
        createdAt: e.createdAt.toISOString(),
        updatedAt: e.updatedAt.toISOString(),
        ...(found.length > 0 && { problems: found }),
      }
    })
    return page(request, rows, { page: request.query.page, limit: request.query.limit, total })
  })

  app.post(
    '/',
    {
      schema: { body: EnvironmentInput, response: { 201: Envelope(Environment), ...errors } },
      // The catalog check reads the values as sent: the schema's coercion would turn "true" into true.
      preValidation: async (request) => {
        createFindings.set(request, catalogCheck.create(request.body, await catalogCheck.current(request.log), request.log))
      },
      // Schema errors and catalog findings are answered together.
      attachValidation: true,
    },
    async (request, reply) => {
      const catalogFindings = createFindings.get(request) ?? []
      if (request.validationError) throw schemaFailure(detailsFromValidation(request.validationError as FastifyError), catalogFindings)
      const scope = await repo.target(request.principal, request.body.team)
      await checkRules(scope.ownerKey, request.body, catalogFindings)
      const env = await repo.create(scope.ownerKey, request.body, {
        migrations: await currentMigrations(request),
        createdBy: request.principal.userId,
      })
      await app.history.record(request, { kind: 'create', environment: { id: env._id, name: env.name }, after: toEnvironment(env) })
      return reply.code(201).send(ok(request, await view(request, env, scope)))
    },
  )

  app.get('/:id', { schema: { params: IdParams, response: { 200: Envelope(Environment), ...errors } } }, async (request) => {
    // The last push record (by `_id`) is read beside the environment, one round trip fewer; it is
    // used only once the caller is found to have access, and dropped with a 404.
    const last = app.jobs.pushing.records.last(request.params.id)
    last.catch(() => {})
    const { env, ...scope } = await repo.access(request.principal, request.params.id, 'read')
    return ok(request, await view(request, env, scope, { last: () => last }))
  })

  /**
   * A merge patch of one of the caller's environments (PUT's rules), recorded in its history.
   * `patchOf` makes the patch from the stored record (again on every retry of a lost race).
   */
  /**
   * A merge patch of an environment the caller may change (PUT's rules), recorded in its history.
   * `patchOf` makes the patch from the stored record (again on every retry of a lost race). `move`:
   * the team the environment goes to (null: the caller's own), after the rest is written.
   */
  async function update(
    request: FastifyRequest,
    id: string,
    patchOf: (stored: EnvironmentRecord) => Record<string, unknown> | Promise<Record<string, unknown>>,
    change: { kind: 'update' | 'restore'; restoredFrom?: number },
    move?: { team: string | null },
  ) {
    // Before the owner's write lock: reading the catalog may wait for the processor.
    const catalog = await catalogCheck.current(request.log)
    const { env: found, ...scope } = await repo.access(request.principal, id, 'change')
    const target = move && move.team !== (scope.team?.name ?? null) ? await repo.target(request.principal, move.team) : null
    const owner = found.userId
    const { stored, updated, secretsChanged } = await repo.updating(owner, request, async (locked) => {
      const stored = await repo.get(owner, id)
      if (!stored) throw notFound('Environment not found')
      const patch = await patchOf(stored)

      const immutable: FieldError[] = IMMUTABLE.filter((field) => field in patch && patch[field] !== stored[field]).map((field) => ({
        field,
        message: 'cannot be changed after creation',
      }))
      if (immutable.length > 0) throw validationError(immutable)

      // Validate the merged document exactly as a create body (defaults, dropped extras, every rule).
      const merged = mergePatch(inputOf(stored), patch)
      // The values the patch changes, against the catalog; before the schema coerces `merged` in place.
      const catalogFindings = catalogCheck.update(patch, stored as unknown as Record<string, unknown>, merged, catalog, request.log)
      const validate = request.compileValidationSchema(EnvironmentInput, 'body')
      if (!validate(merged)) {
        throw schemaFailure(
          detailsFromValidation({ validation: validate.errors, validationContext: 'body' } as FastifyError),
          catalogFindings,
        )
      }
      const input = merged as EnvironmentInput
      await checkRules(owner, input, catalogFindings, stored)

      const deployKey = deployKeyChange(patch)
      const updated = await locked.replace(stored, input, deployKey)
      if (!updated) throw notFound('Environment not found')
      const secretsChanged = deployKey === 'keep' || !(stored.deployKey || updated.deployKey) ? [] : ['gitRepository.deployKey']
      return { stored, updated, secretsChanged }
    })
    const result = target ? await repo.move(updated, target.ownerKey, request.principal.userId) : updated
    await app.history.record(request, {
      ...change,
      environment: { id: result._id, name: result.name },
      before: toEnvironment(stored),
      after: toEnvironment(result),
      secretsChanged,
    })
    return ok(request, await view(request, result, target ?? scope))
  }

  app.put(
    '/:id',
    { schema: { params: IdParams, body: EnvironmentPatch, response: { 200: Envelope(Environment), ...errors } } },
    async (request) => {
      // A patch naming another team (or null: the caller's own) moves the environment.
      const { team, ...patch } = request.body as Record<string, unknown>
      const move = 'team' in (request.body as object) ? { team: team as string | null } : undefined
      return update(request, request.params.id, () => patch, { kind: 'update' }, move)
    },
  )

  app.post(
    '/:id/history/:entryId/restore',
    { schema: { params: EntryParams, response: { 200: Envelope(Environment), ...errors } } },
    async (request) => {
      const { id, entryId } = request.params
      // The entry is read once the caller is found to have access (`update`).
      const patchOf = async (stored: EnvironmentRecord) =>
        app.history.restorePatch(inputOf(stored), await app.history.configurationAt(id, entryId))
      return update(request, id, patchOf, { kind: 'restore', restoredFrom: entryId })
    },
  )

  app.delete(
    '/:id',
    { schema: { params: IdParams, response: { 204: { type: 'null', description: 'Deleted' }, ...errors } } },
    async (request, reply) => {
      const { env } = await repo.access(request.principal, request.params.id, 'change')
      if (!(await repo.remove(env.userId, env._id))) throw notFound('Environment not found')
      await app.history.record(request, { kind: 'delete', environment: { id: env._id, name: env.name } })
      return reply.code(204).send()
    },
  )
}

/** A new key when the patch carries one, removal when it nulls it (or the whole repository). */
function deployKeyChange(patch: Record<string, unknown>): DeployKeyChange {
  if (!('gitRepository' in patch)) return 'keep'
  const git = patch.gitRepository
  if (git === null) return 'remove'
  if (typeof git !== 'object' || !('deployKey' in git)) return 'keep'
  const key = (git as { deployKey: unknown }).deployKey
  if (key === null) return 'remove'
  return typeof key === 'string' ? { set: key } : 'keep'
}

export default environments
