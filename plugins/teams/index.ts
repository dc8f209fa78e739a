// /api/teams: teams and their members (docs/teams.md). An admin creates, renames and deletes teams and
// sets members' roles; anyone lists the teams they belong to (with their role), and a team's members
// are shown to an admin and to the team's members.
//   GET    /teams                            admin: every team; others: their own, with `role`
//   POST   /teams             { name }       admin
//   PUT    /teams/:team       { name }       admin: rename (environments follow: they hold the id)
//   PUT    /teams/:team/settings { requireProductionApproval }  admin: the team's settings
//   DELETE /teams/:team                      admin: only without environments or cloud credentials
//   GET    /teams/:team/members              admin or member
//   PUT    /teams/:team/members/:kind/:name  { role }  admin: add a member or change their role
//   DELETE /teams/:team/members/:kind/:name  admin
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ArrayEnvelope, Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { notFound } from '@ies/server/core/errors'
import { toTeam } from './repository.ts'
import { Member, MemberInput, MemberParams, Team, TeamInput, TeamParams, TeamSettingsInput } from '@ies/api/schemas/teams'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody }

const teams: FastifyPluginAsyncTypebox = async (app) => {
  const repo = app.teams
  const admin = { onRequest: app.requireAdmin }

  app.get('/', { schema: { response: { 200: ArrayEnvelope(Team), ...errors } } }, async (request) => {
    const mine = await repo.rolesOf(request.principal)
    const all = await repo.list()
    const shown = request.principal.isAdmin ? all : all.filter((t) => mine.has(t._id))
    return ok(
      request,
      shown.map((t) => toTeam(t, mine.get(t._id)?.role)),
    )
  })

  app.post('/', { ...admin, schema: { body: TeamInput, response: { 201: Envelope(Team), ...errors } } }, async (request, reply) => {
    return reply.code(201).send(ok(request, toTeam(await repo.create(request.body.name))))
  })

  app.put(
    '/:team',
    { ...admin, schema: { params: TeamParams, body: TeamInput, response: { 200: Envelope(Team), ...errors } } },
    async (request) => ok(request, toTeam(await repo.rename(request.params.team, request.body.name))),
  )

  app.put(
    '/:team/settings',
    { ...admin, schema: { params: TeamParams, body: TeamSettingsInput, response: { 200: Envelope(Team), ...errors } } },
    async (request) => ok(request, toTeam(await repo.setSettings(request.params.team, request.body))),
  )

  app.delete(
    '/:team',
    { ...admin, schema: { params: TeamParams, response: { 204: { type: 'null', description: 'Deleted' }, ...errors } } },
    async (request, reply) => {
      await repo.remove(request.params.team)
      return reply.code(204).send()
    },
  )

  app.get('/:team/members', { schema: { params: TeamParams, response: { 200: ArrayEnvelope(Member), ...errors } } }, async (request) => {
    const team = await repo.find(request.params.team)
    // A team the caller is not in is not shown to them, as an environment is not.
    if (!team || (!request.principal.isAdmin && !(await repo.rolesOf(request.principal)).has(team._id))) throw notFound('Team not found')
    return ok(request, await repo.members(team._id))
  })

  app.put(
    '/:team/members/:kind/:name',
    { ...admin, schema: { params: MemberParams, body: MemberInput, response: { 200: Envelope(Member), ...errors } } },
    async (request) => {
      const team = await repo.get(request.params.team)
      const member = { kind: request.params.kind, name: request.params.name, role: request.body.role }
      await repo.setMember(team._id, member)
      return ok(request, member)
    },
  )

  app.delete(
    '/:team/members/:kind/:name',
    { ...admin, schema: { params: MemberParams, response: { 204: { type: 'null', description: 'Removed' }, ...errors } } },
    async (request, reply) => {
      const team = await repo.get(request.params.team)
      if (!(await repo.removeMember(team._id, request.params.kind, request.params.name))) throw notFound('Not a member of this team')
      return reply.code(204).send()
    },
  )
}

export default teams
