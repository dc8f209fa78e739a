// The response envelope of the spec, and its TypeBox schemas: the only place bodies are wrapped.
import { randomUUID } from 'node:crypto'
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'

export const Meta = Type.Object({
  requestId: Type.String({ format: 'uuid' }),
  timestamp: Type.String({ format: 'date-time' }),
})

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer(),
})

export const ErrorDetail = Type.Object({ field: Type.String(), message: Type.String() })

export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Record(Type.String(), Type.Any())])),
  }),
  meta: Meta,
})

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ data, meta: Meta })

export const ListEnvelope = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), meta: Meta, pagination: Pagination })

/** Query parameters shared by every paginated list. */
export const PageQuery = {
  // Bounded so that (page - 1) * limit stays a safe integer the database accepts as a skip.
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
}

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
