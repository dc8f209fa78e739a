// The service catalog document (spec "Service catalog document"); its fields come from decorators.
import { Type } from '@sinclair/typebox'

const Field = Type.Object(
  {},
  { additionalProperties: true, description: 'displayName, description, type, options, pattern, default, available, category' },
)

export const CatalogDocument = Type.Object({
  schemaVersion: Type.Integer(),
  commit: Type.String(),
  global: Type.Object({ fields: Type.Record(Type.String(), Field) }),
  services: Type.Record(
    Type.String(),
    Type.Object({ displayName: Type.String(), fields: Type.Record(Type.String(), Field) }, { additionalProperties: true }),
  ),
  errors: Type.Array(Type.Object({}, { additionalProperties: true })),
})
