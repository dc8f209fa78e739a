// /api/cloud-credentials: the caller's cloud credentials, encrypted at rest, never returned
// (see README.md beside this file).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ListEnvelope, ok, page } from '@ies/server/core/envelope'
import { detailsFromValidation, notFound, validationError } from '@ies/server/core/errors'
import {
  CREDENTIALS_BY_PROVIDER,
  CredentialCreate,
  CredentialCreated,
  CredentialDetail,
  CredentialSummary,
  CredentialUpdate,
  CredentialUpdated,
  IdParams,
  ListQuery,
  ValidationResult,
  type CredentialProvider,
  type Credentials,
} from '@ies/api/schemas/cloud-credentials'
import type { EnvironmentAction } from '@ies/api/schemas/teams'
import { credentialInUse } from './repository.ts'
import { validateCredentials } from './validate.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody }

const NOT_FOUND = 'Cloud credential not found'

/**
 * `credentials` checked against its provider's schema, with fields named `credentials.<member>`.
 * Ajv's messages name the rule, never the submitted value.
 */
function credentialsOf(request: FastifyRequest, provider: CredentialProvider, value: unknown): Credentials {
  const validate = request.compileValidationSchema(CREDENTIALS_BY_PROVIDER[provider], 'body')
  if (!validate(value)) {
    const prefixed = (validate.errors ?? []).map((e) => ({ ...e, instancePath: `/credentials${e.instancePath}` }))
    throw validationError(detailsFromValidation({ validation: prefixed, validationContext: 'body' } as unknown as FastifyError))
  }
  return value as Credentials
}

const cloudCredentials: FastifyPluginAsyncTypebox = async (app) => {
  const { cloudCredentials: repo, environments, teams } = app

  /**
   * The credential's owner key (the caller's id or a team's), when the caller's role there allows the
   * action (plugins/teams/scopes.ts): 404 for one they may not see, 403 for a role too weak.
   */
  async function ownerFor(request: FastifyRequest, id: string, action: EnvironmentAction): Promise<{ owner: string; team?: string }> {
    const scope = await teams.check(request.principal, await repo.ownerOf(id), action, {
      notFoundMessage: NOT_FOUND,
      what: 'cloud credentials',
    })
    return { owner: scope.ownerKey, team: scope.team?.name }
  }

  app.get('/', { schema: { querystring: ListQuery, response: { 200: ListEnvelope(CredentialSummary), ...errors } } }, async (request) => {
    const owners = new Map((await teams.scopes(request.principal)).map((s) => [s.ownerKey, s.team?.name]))
    const { items, total } = await repo.list(owners, request.query)
    return page(request, items, { page: request.query.page, limit: request.query.limit, total })
  })

  app.post(
    '/',
    { schema: { body: CredentialCreate, response: { 201: Envelope(CredentialCreated), ...errors } } },
    async (request, reply) => {
      const { name, provider } = request.body
      const credentials = credentialsOf(request, provider, request.body.credentials)
      const scope = await teams.target(request.principal, request.body.team, 'cloud credentials')
      const created = await repo.create(scope.ownerKey, { name, provider, credentials })
      return reply.code(201).send(ok(request, { ...created, ...(scope.team && { team: scope.team.name }) }))
    },
  )

  app.get('/:id', { schema: { params: IdParams, response: { 200: Envelope(CredentialDetail), ...errors } } }, async (request) => {
    const { owner, team } = await ownerFor(request, request.params.id, 'read')
    const credential = await repo.get(owner, request.params.id)
    if (!credential) throw notFound(NOT_FOUND)
    return ok(request, { ...credential, ...(team && { team }) })
  })

  app.put(
    '/:id',
    { schema: { params: IdParams, body: CredentialUpdate, response: { 200: Envelope(CredentialUpdated), ...errors } } },
    async (request) => {
      const { owner: userId } = await ownerFor(request, request.params.id, 'change')
      const current = await repo.get(userId, request.params.id)
      if (!current) throw notFound(NOT_FOUND)
      const { name } = request.body
      const credentials =
        request.body.credentials === undefined ? undefined : credentialsOf(request, current.provider, request.body.credentials)
      const updated = await repo.update(userId, current.id, { name, credentials })
      if (!updated) throw notFound(NOT_FOUND)
      // New secrets change what every environment using the credential deploys with.
      if (credentials) {
        for (const environment of await environments.usingCredential(userId, current.id)) {
          await app.history.record(request, { kind: 'credential-rotated', environment, credentialId: current.id })
        }
      }
      return ok(request, updated)
    },
  )

  app.delete(
    '/:id',
    { schema: { params: IdParams, response: { 204: { type: 'null', description: 'Deleted' }, ...errors } } },
    async (request, reply) => {
      const { owner: userId } = await ownerFor(request, request.params.id, 'change')
      const current = await repo.get(userId, request.params.id)
      if (!current) throw notFound(NOT_FOUND)
      const names = await environments.namesUsingCredential(userId, current.id)
      if (names.length > 0) {
        throw credentialInUse(names)
      }
      if (!(await repo.remove(userId, current.id))) throw notFound(NOT_FOUND)
      return reply.code(204).send()
    },
  )

  app.put('/:id/default', { schema: { params: IdParams, response: { 200: Envelope(CredentialSummary), ...errors } } }, async (request) => {
    const { owner } = await ownerFor(request, request.params.id, 'change')
    const credential = await repo.setDefault(owner, request.params.id)
    if (!credential) throw notFound(NOT_FOUND)
    return ok(request, credential)
  })

  app.post('/:id/validate', { schema: { params: IdParams, response: { 200: Envelope(ValidationResult), ...errors } } }, async (request) => {
    const { owner: userId } = await ownerFor(request, request.params.id, 'operate')
    const stored = await repo.getCredentials(userId, request.params.id)
    if (!stored) throw notFound(NOT_FOUND)
    const checked = await validateCredentials(stored.provider, stored.credentials, app.config.cloud)
    const result = { ...checked, checkedAt: new Date().toISOString() } as ValidationResult
    await repo.recordValidation(userId, request.params.id, result)
    return ok(request, result)
  })
}

export default cloudCredentials
