// /api/users: the caller's own record and preferences, and the admin-only list of all users.
import type { Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Envelope, ErrorBody, ListEnvelope, ok, page } from '@ies/server/core/envelope'
import { notFound, validationError } from '@ies/server/core/errors'
import { MeUpdate, Preferences, PreferencesUpdate, User, UserListQuery } from '@ies/api/schemas/users'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

const users: FastifyPluginAsyncTypebox = async (app) => {
  const repo = app.users

  async function me(userId: string) {
    const user = await repo.get(userId)
    if (!user) throw notFound('User not found')
    return user
  }

  /**
   * Stores a preferences update that names at least one preference. The schema's minProperties is
   * checked before unknown members are dropped, so `{ "colour": "red" }` arrives here empty.
   */
  async function updatePreferences(userId: string, preferences: Partial<Static<typeof Preferences>>, field: string) {
    if (Object.keys(preferences).length === 0) {
      throw validationError([{ field, message: 'must set theme or defaultProvider' }])
    }
    const user = await repo.updatePreferences(userId, preferences)
    if (!user) throw notFound('User not found')
    return user
  }

  app.get('/me', { schema: { response: { 200: Envelope(User), ...errors } } }, async (request) =>
    ok(request, await me(request.principal.userId)),
  )

  app.put('/me', { schema: { body: MeUpdate, response: { 200: Envelope(User), ...errors } } }, async (request) => {
    return ok(request, await updatePreferences(request.principal.userId, request.body.preferences, 'preferences'))
  })

  app.get('/me/preferences', { schema: { response: { 200: Envelope(Preferences), ...errors } } }, async (request) =>
    ok(request, (await me(request.principal.userId)).preferences),
  )

  app.put(
    '/me/preferences',
    { schema: { body: PreferencesUpdate, response: { 200: Envelope(Preferences), ...errors } } },
    async (request) => {
      return ok(request, (await updatePreferences(request.principal.userId, request.body, '(body)')).preferences)
    },
  )

  app.get(
    '/',
    {
      onRequest: app.requireAdmin,
      schema: { querystring: UserListQuery, response: { 200: ListEnvelope(User), ...errors } },
    },
    async (request) => {
      const { page: p, limit } = request.query
      const { items, total } = await repo.list(p, limit)
      return page(request, items, { page: p, limit, total })
    },
  )
}

export default users
