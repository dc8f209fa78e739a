// /api/environments: the caller's stored environment configurations (see README.md beside this file).
// The shared checks and the response form: route-context.ts; PUT and restore: update.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ListEnvelope, ok, page } from '@ies/server/core/envelope'
import { detailsFromValidation, notFound, type FieldError } from '@ies/server/core/errors'
import { Environment, EnvironmentInput, EnvironmentPatch, EnvironmentSummary, IdParams, ListQuery } from '@ies/api/schemas/environments'
import { EntryParams } from '@ies/api/schemas/history'
import { inputOf, toEnvironment, type EnvironmentRecord } from './record.ts'
import { routeContext, schemaFailure } from './route-context.ts'
import { update } from './update.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 413: ErrorBody }

const environments: FastifyPluginAsyncTypebox = async (app) => {
  const repo = app.environments
  const context = routeContext(app)
  const { catalogCheck, stranded, currentMigrations, checkRules, view } = context
  /** The catalog check's findings on a create body, made on the body as sent (preValidation). */
  const createFindings = new WeakMap<FastifyRequest, FieldError[]>()

  app.get('/', { schema: { querystring: ListQuery, response: { 200: ListEnvelope(EnvironmentSummary), ...errors } } }, async (request) => {
    // List rows straight from the caller's and their teams' summaries (docs/internals/data-and-scale.md);
    // records are read (by _id) only to judge rows whose stranded state is not cached.
    const { items, total } = await repo.listRows(request.principal, request.query)
    const catalog = await catalogCheck.current(request.log)
    const problems = await stranded.rows(catalog, items, (ids) => repo.records(ids))
    const rows = items.map(({ labels, ...e }) => {
      const found = problems.get(e.id) ?? []
      return {
        ...e,
        ...(Object.keys(labels).length > 0 && { labels }),
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
      const catalog = await catalogCheck.current(request.log)
      await app.policies.enforce(request.body, { team: scope.team?.name ?? null, catalog, log: request.log })
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
  app.put(
    '/:id',
    { schema: { params: IdParams, body: EnvironmentPatch, response: { 200: Envelope(Environment), ...errors } } },
    async (request) => {
      // A patch naming another team (or null: the caller's own) moves the environment.
      const { team, ...patch } = request.body as Record<string, unknown>
      const move = 'team' in (request.body as object) ? { team: team as string | null } : undefined
      return update(context, request, request.params.id, () => patch, { kind: 'update' }, move)
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
      return update(context, request, id, patchOf, { kind: 'restore', restoredFrom: entryId })
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

export default environments
