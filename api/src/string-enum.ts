// Small TypeBox helpers shared by every resource's schemas.
import { Type, type TUnsafe } from '@sinclair/typebox'

/** A string enum as JSON Schema `enum`, so a wrong value reads "must be one of: a, b, c". */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}
