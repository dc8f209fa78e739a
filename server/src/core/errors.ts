// Every error the API answers is made here: one class, one factory per code, one error handler.
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb'
import { OPEN_CODES, SPEC_CODES } from '@ies/api/errors'
import type { ErrorDetail } from '@ies/api/envelope'
import { meta } from './envelope.ts'

export type FieldError = ErrorDetail

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
  }
}

export const validationError = (details: FieldError[], message = 'Request validation failed') =>
  new AppError(400, SPEC_CODES.validation, message, details)
export const fieldError = (field: string, message: string) => validationError([{ field, message }])
export const unauthorized = (message = 'Authentication required') => new AppError(401, SPEC_CODES.unauthorized, message)
export const tokenExpired = () => new AppError(401, SPEC_CODES.tokenExpired, 'Access token has expired')
export const forbidden = () => new AppError(403, SPEC_CODES.forbidden, 'Insufficient permissions')
export const notFound = (message = 'Resource not found') => new AppError(404, SPEC_CODES.notFound, message)
export const conflict = (message: string) => new AppError(409, SPEC_CODES.conflict, message)
export const unavailable = (message = 'Service temporarily unavailable') => new AppError(503, OPEN_CODES.unavailable, message)
/** The organisation's rules refuse a configuration: one detail per `deny`, each with its rule and field. */
export const policyDenied = (details: Array<FieldError & { rule: string; fields: string[] }>) =>
  new AppError(400, OPEN_CODES.policyDenied, "The organisation's rules refuse this configuration", details)

/** The error codes (docs/api.md, "Error codes"): the API contract's lists. */
export { OPEN_CODES, SPEC_CODES }

function send(request: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string, details?: unknown) {
  const error: Record<string, unknown> = { code, message }
  if (details !== undefined) error.details = details
  return reply
    .code(status)
    .type('application/json')
    .send({ error, meta: meta(request) })
}

/** `/credentials/accessKeyId` + missingProperty -> `credentials.accessKeyId`. */
function fieldOf(item: { instancePath?: string; params?: Record<string, unknown> }, context?: string): string {
  const parts = (item.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  const missing = item.params?.missingProperty ?? item.params?.additionalProperty
  if (typeof missing === 'string') parts.push(missing)
  if (parts.length === 0 && context && context !== 'body') return context
  return parts.join('.') || '(body)'
}

function messageOf(item: { keyword?: string; message?: string; params?: Record<string, unknown> }): string {
  if (item.keyword === 'required') return 'is required'
  if (item.keyword === 'additionalProperties') return 'is not allowed'
  if (item.keyword === 'enum' && Array.isArray(item.params?.allowedValues)) {
    return `must be one of: ${(item.params.allowedValues as unknown[]).join(', ')}`
  }
  return item.message ?? 'is invalid'
}

/** Ajv's errors as the spec's `details`: one entry per field, the most useful message first. */
export function detailsFromValidation(error: FastifyError): FieldError[] {
  const seen = new Map<string, string>()
  for (const item of error.validation ?? []) {
    const field = fieldOf(item as never, error.validationContext)
    // A union/anyOf failure repeats itself; keep the first message for a field.
    if (!seen.has(field)) seen.set(field, messageOf(item as never))
  }
  return [...seen].map(([field, message]) => ({ field, message }))
}

const DATABASE_DOWN = [
  MongoNetworkError,
  MongoServerSelectionError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
  MongoOperationTimeoutError,
  // In flight while the client is replaced (db.ts reconnects when the driver's monitor stalls on a
  // database that hangs without closing its sockets).
  MongoClientClosedError,
  MongoServerClosedError,
]
/**
 * The driver's pool errors, not exported by the package: the pool closed under a request, and no
 * connection freed within waitQueueTimeoutMS (every one is stuck on a database that does not answer).
 */
const DATABASE_DOWN_NAMES = new Set(['MongoPoolClosedError', 'MongoWaitQueueTimeoutError'])
/** Server codes of a database that is shutting down, restarting or unreachable from its own side. */
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436])

/**
 * FerretDB on SQLite: a write that waited its whole busy timeout (10 s) for another writer's lock
 * (a long update of a large table) fails with InternalError (1) naming SQLITE_BUSY. The store is
 * busy, not the request wrong: try again shortly, like an unreachable database.
 */
const STORE_BUSY = /\bSQLITE_BUSY\b|database is locked/

/** Socket failures the driver sometimes lets through unwrapped (a write after the server hung up). */
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ENOTCONN'])

/** True for every failure that means "the database is not available right now" (answered 503). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (DATABASE_DOWN.some((type) => error instanceof type)) return true
  if (DATABASE_DOWN_NAMES.has((error as Error)?.name)) return true
  if (SOCKET_CODES.has((error as NodeJS.ErrnoException)?.code ?? '')) return true
  if (!(error instanceof MongoError)) return false
  if (error.hasErrorLabel('RetryableWriteError') || error.hasErrorLabel('ResetPool')) return true
  if (error.code === 1 && STORE_BUSY.test(error.message)) return true
  return typeof error.code === 'number' && UNAVAILABLE_CODES.has(error.code)
}

/**
 * Fastify's `frameworkErrors`: errors raised while routing, before any hook runs. Without it they are
 * answered with Fastify's own body (and 414 for a path parameter over `maxParamLength`), not ours.
 * No resource has an id that long, so it is 404; a URL that does not decode is 400.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return send(request, reply, 404, SPEC_CODES.notFound, 'Resource not found')
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return send(request, reply, 400, SPEC_CODES.validation, 'The URL is not valid', [{ field: '(url)', message: 'must be a valid URL' }])
  }
  request.log.error({ err: error }, 'routing error')
  return send(request, reply, 500, OPEN_CODES.internal, 'Internal server error')
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before Fastify sees it (headers
 * over the size limit, a malformed request line or header, a request that arrived too slowly) is
 * answered in the envelope too, then the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, reason, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', OPEN_CODES.badRequest, 'Request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', OPEN_CODES.badRequest, 'The request did not arrive in time']
        : [400, 'Bad Request', OPEN_CODES.badRequest, 'Malformed HTTP request']
  const body = JSON.stringify({ error: { code, message }, meta: { requestId: randomUUID(), timestamp: new Date().toISOString() } })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

export function registerErrorHandlers(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      return send(request, reply, error.statusCode, error.code, error.message, error.details)
    }
    if (error.validation) {
      return send(request, reply, 400, SPEC_CODES.validation, 'Request validation failed', detailsFromValidation(error))
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: { type: error.name } }, 'database unreachable')
      return send(request, reply, 503, OPEN_CODES.unavailable, 'The database is unreachable; try again shortly')
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(request, reply, 400, SPEC_CODES.validation, 'Request body is not valid JSON', [
          { field: '(body)', message: 'must be valid JSON' },
        ])
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(request, reply, 400, SPEC_CODES.validation, 'Unsupported content type; send application/json', [
          { field: '(content-type)', message: 'must be application/json' },
        ])
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(request, reply, 413, OPEN_CODES.payloadTooLarge, 'Request body is too large')
    }
    const status = error.statusCode ?? 500
    if (status === 429) {
      return send(request, reply, 429, OPEN_CODES.rateLimited, error.message || 'Too many requests')
    }
    if (status >= 400 && status < 500) {
      // A client error raised by Fastify or a plugin that has no mapping above.
      return send(request, reply, status, OPEN_CODES.badRequest, error.message)
    }
    request.log.error({ err: error }, 'unhandled error')
    return send(request, reply, 500, OPEN_CODES.internal, 'Internal server error')
  })

  app.setNotFoundHandler((request, reply) =>
    send(request, reply, 404, SPEC_CODES.notFound, `Route ${request.method} ${request.url.split('?')[0]} not found`),
  )
}
