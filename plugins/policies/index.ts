// POST /api/policies/evaluate: what the organisation's rules say of an environment document, before
// anything is stored (the wizard's draft as the user edits it, `ies policy check -f FILE`). The same
// rules and the same evaluation as the writes (service.ts); nothing is stored.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { EvaluateBody, PolicyResult } from '@ies/api/schemas/policies'

const errors = { 400: ErrorBody, 401: ErrorBody, 413: ErrorBody }

const policies: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/evaluate', { schema: { body: EvaluateBody, response: { 200: Envelope(PolicyResult), ...errors } } }, async (request) => {
    const doc = request.body.environment as Record<string, unknown>
    const team = typeof doc.team === 'string' ? doc.team : null
    return ok(request, await app.policies.evaluate(doc, { team, log: request.log }))
  })
}

export default policies
