// The response envelope of the spec as TypeBox schemas (the server validates and documents with
// them) and as the types a client reads. TypeBox runs in the browser too.
import { Type, type Static, type TSchema } from '@sinclair/typebox'

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

/** A whole list in one answer (no pagination): `{ data: [...], meta }`. */
export const ArrayEnvelope = <T extends TSchema>(item: T) => Envelope(Type.Array(item))

export const ListEnvelope = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), meta: Meta, pagination: Pagination })

/** Query parameters shared by every paginated list. */
export const PageQuery = {
  // Bounded so that (page - 1) * limit stays a safe integer the database accepts as a skip.
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
}

export type Meta = Static<typeof Meta>
export type Pagination = Static<typeof Pagination>
/** One entry of a VALIDATION_ERROR's `details`: the field named as a dotted path. */
export type ErrorDetail = Static<typeof ErrorDetail>
export type ErrorBody = Static<typeof ErrorBody>
