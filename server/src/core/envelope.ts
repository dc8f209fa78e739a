// The response envelope of the spec: the only place bodies are wrapped.
import { randomUUID } from 'node:crypto'
import type { FastifyRequest } from 'fastify'

// The envelope's schemas are the API contract's (api/src/envelope.ts).
export { ArrayEnvelope, Envelope, ErrorBody, ErrorDetail, ListEnvelope, Meta, PageQuery, Pagination } from '@ies/api/envelope'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Fastify's genReqId: the client's X-Request-ID when it is a UUID, otherwise a fresh one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header
  return value && UUID.test(value) ? value.toLowerCase() : randomUUID()
}

export function meta(request: FastifyRequest) {
  return { requestId: request.id, timestamp: new Date().toISOString() }
}

export function ok<T>(request: FastifyRequest, data: T) {
  return { data, meta: meta(request) }
}

export function page<T>(request: FastifyRequest, data: T[], p: { page: number; limit: number; total: number }) {
  return {
    data,
    meta: meta(request),
    pagination: { page: p.page, limit: p.limit, total: p.total, totalPages: Math.ceil(p.total / p.limit) },
  }
}
