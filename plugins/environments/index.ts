// /api/environments: the caller's stored environment configurations (see README.md beside this file).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ListEnvelope, ok, page } from '@ies/server/core/envelope'
import { currentTemplatesCommit, pinnedVersions, upgradeStatus, type PushRecords } from '@ies/server/jobs/push/push-records'
import { templatesPinErrors } from '@ies/server/jobs/generation/templates-versions'
import { detailsFromValidation, notFound, validationError, type FieldError } from '@ies/server/core/errors'
import { catalogCheckFor, withoutOverlap } from './catalog-check.ts'
import { mergePatch } from './merge-patch.ts'
import { inputOf, toEnvironment, type DeployKeyChange, type EnvironmentRecord } from './repository.ts'
import { credentialReferenceErrors, gitRepositoryUrlErrors, helmValuesErrors } from './rules.ts'
import { Environment, EnvironmentInput, EnvironmentPatch, EnvironmentSummary, IdParams, ListQuery } from './schemas.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 413: ErrorBody }

const IMMUTABLE = ['name', 'globalPrefix'] as const

const environments: FastifyPluginAsyncTypebox = async (app) => {
  const { environments: repo, cloudCredentials: credentials } = app
  const catalogCheck = catalogCheckFor(app)
  /** The catalog check's findings on a create body, made on the body as sent (preValidation). */
  const createFindings = new WeakMap<FastifyRequest, FieldError[]>()

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
  async function view(request: FastifyRequest, env: EnvironmentRecord, records: Pick<PushRecords, 'last'> = app.jobs.pushing.records) {
    const templatesCommit = () => currentTemplatesCommit(app.templates, request.log)
    const { lastPush, behind } = await upgradeStatus(records, env, templatesCommit, pinnedVersions(app.templates))
    return { ...toEnvironment(env), lastPush, behind }
  }

  async function owned(request: FastifyRequest, id: string): Promise<EnvironmentRecord> {
    const env = await repo.get(request.principal.userId, id)
    if (!env) throw notFound('Environment not found')
    return env
  }

  app.get('/', { schema: { querystring: ListQuery, response: { 200: ListEnvelope(EnvironmentSummary), ...errors } } }, async (request) => {
    // List rows straight from the user's summary: no record is read (docs/internals/data-and-scale.md).
    const { items, total } = await repo.listRows(request.principal.userId, request.query)
    const rows = items.map((e) => ({ ...e, createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString() }))
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
      await checkRules(request.principal.userId, request.body, catalogFindings)
      const env = await repo.create(request.principal.userId, request.body)
      return reply.code(201).send(ok(request, await view(request, env)))
    },
  )

  app.get('/:id', { schema: { params: IdParams, response: { 200: Envelope(Environment), ...errors } } }, async (request) => {
    // The last push record (by `_id`) is read beside the environment, one round trip fewer; it is
    // used only once the environment is found to be the caller's, and dropped with a 404.
    const last = app.jobs.pushing.records.last(request.params.id)
    last.catch(() => {})
    return ok(request, await view(request, await owned(request, request.params.id), { last: () => last }))
  })

  app.put(
    '/:id',
    { schema: { params: IdParams, body: EnvironmentPatch, response: { 200: Envelope(Environment), ...errors } } },
    async (request) => {
      // Before the owner's write lock: reading the catalog may wait for the processor.
      const catalog = await catalogCheck.current(request.log)
      return repo.updating(request.principal.userId, request, async (locked) => {
        const stored = await owned(request, request.params.id)
        const patch = request.body as Record<string, unknown>

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
        await checkRules(request.principal.userId, input, catalogFindings, stored)

        const updated = await locked.replace(stored, input, deployKeyChange(patch))
        if (!updated) throw notFound('Environment not found')
        return ok(request, await view(request, updated))
      })
    },
  )

  app.delete(
    '/:id',
    { schema: { params: IdParams, response: { 204: { type: 'null', description: 'Deleted' }, ...errors } } },
    async (request, reply) => {
      if (!(await repo.remove(request.principal.userId, request.params.id))) throw notFound('Environment not found')
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
