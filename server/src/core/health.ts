// GET /health at the server root: no authentication, no rate limit, reports the database.
import type { FastifyInstance } from 'fastify'
import { OPEN_CODES } from '@ies/api/errors'
import { Health } from '@ies/api/schemas/health'
import { databaseReachable } from './db.ts'
import { Envelope, ErrorBody, meta, ok } from './envelope.ts'

export default async function health(app: FastifyInstance) {
  app.get('/health', { schema: { security: [], response: { 200: Envelope(Health), 503: ErrorBody } } }, async (request, reply) => {
    if (await databaseReachable(app.mongo.db)) return ok(request, { status: 'ok', checks: { database: 'up' } })
    return reply.code(503).send({
      error: { code: OPEN_CODES.unavailable, message: 'The database is unreachable', details: { database: 'down' } },
      meta: meta(request),
    })
  })
}
