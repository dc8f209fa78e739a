/** The service's error body `{ error: { code, message, details? } }`; no stack trace ever reaches a caller. */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { ProcessorError, type Finding } from '../findings.ts'

export function sendError(reply: FastifyReply, status: number, code: string, message: string, details?: unknown): FastifyReply {
  const error: { code: string; message: string; details?: unknown } = { code, message }
  if (details !== undefined) error.details = details
  return reply.code(status).type('application/json').send({ error })
}

/** 422 for a generation that refused files: the findings are the details. */
export function generationFailed(findings: Finding[], refused: string[]): ProcessorError {
  return new ProcessorError(422, 'GENERATION_FAILED', `${refused.length} file(s) could not be generated`, { refused, findings })
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ProcessorError) return sendError(reply, err.status, err.code, err.message, err.details)
    if (err.validation) {
      const details = err.validation.map((v) => ({
        field: v.instancePath || (v.params as { missingProperty?: string })?.missingProperty || '',
        message: v.message ?? 'invalid',
      }))
      return sendError(reply, 400, 'BAD_REQUEST', `invalid request ${err.validationContext ?? ''}`.trim(), details)
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, 413, 'PAYLOAD_TOO_LARGE', 'the request body is too large')
    const status = err.statusCode ?? 500
    if (status >= 400 && status < 500) return sendError(reply, status === 415 ? 400 : status, 'BAD_REQUEST', err.message)
    request.log.error({ err }, 'processor service error')
    return sendError(reply, 500, 'INTERNAL', 'internal error')
  })
  app.setNotFoundHandler((request, reply) => sendError(reply, 404, 'NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`))
}
