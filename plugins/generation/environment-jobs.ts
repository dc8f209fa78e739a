// An environment's job history (README.md beside this file, "Job history"):
//   GET /environments/:id/jobs?limit=&cursor=   its generation and push jobs, newest first, a page at a
//   time: `pagination.nextCursor` is given to the next request until it is null.
// Whoever may read the environment sees them (app.environments.access; a team's environment: every
// member's jobs), anyone else gets a 404, as everywhere.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorBody, ok } from '@ies/server/core/envelope'
import { fieldError } from '@ies/server/core/errors'
import { toJob } from '@ies/api/schemas/jobs'
import { EnvironmentParams } from '@ies/api/schemas/generation'
import { JobHistoryPage, JobHistoryQuery } from '@ies/api/schemas/job-history'

/** The cursor names the last job of a page: its creation time and id (the order's two keys). */
function cursorOf(job: { createdAt: Date; _id: string }): string {
  return Buffer.from(`${job.createdAt.getTime()}:${job._id}`).toString('base64url')
}

function parseCursor(cursor: string): { createdAt: Date; id: string } {
  const match = /^(\d{1,15}):([\w-]{1,64})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (!match) throw fieldError('cursor', 'must be the nextCursor of a previous page')
  return { createdAt: new Date(Number(match[1])), id: match[2] }
}

export const environmentJobsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/:id/jobs',
    {
      schema: {
        params: EnvironmentParams,
        querystring: JobHistoryQuery,
        response: { 200: JobHistoryPage, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query
      const before = cursor === undefined ? undefined : parseCursor(cursor)
      const { env, role } = await app.environments.access(request.principal, request.params.id, 'read')
      // One more than a page: whether there is a next one. A personal environment's are its owner's.
      const owner = role === 'owner' ? request.principal.userId : undefined
      const records = await app.jobs.store.listForEnvironment(owner, env._id, limit + 1, before)
      const page = records.slice(0, limit)
      const nextCursor = records.length > limit ? cursorOf(page[page.length - 1]) : null
      return { ...ok(request, page.map(toJob)), pagination: { limit, nextCursor } }
    },
  )
}
