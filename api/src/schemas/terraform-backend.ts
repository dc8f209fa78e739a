// POST /api/environments/terraform-backend/create: the state bucket to create (or adopt) and the
// `terraformBackend` to store that it answers.
import { Type } from '@sinclair/typebox'

export const TerraformBackendCreate = Type.Object(
  {
    cloudCredentialId: Type.String({ format: 'uuid' }),
    bucket: Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$', description: 'S3 bucket name (3-63 chars).' }),
    region: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+$', maxLength: 32 })),
    environmentId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
)

/** The answer: an environment's `terraformBackend` with every member set (S3 native locking on). */
export const CreatedTerraformBackend = Type.Object({
  bucket: Type.String(),
  region: Type.String(),
  key: Type.String(),
  useLockfile: Type.Literal(true),
})
