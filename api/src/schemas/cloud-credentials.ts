// The cloud credential resource: inputs per provider (secret), and the non-secret shapes returned.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { PageQuery } from '../envelope.ts'
import { StringEnum } from '../string-enum.ts'
import { CREDENTIAL_PROVIDERS, type CredentialProvider } from '../values.ts'
import { TeamName } from './teams.ts'

export { CREDENTIAL_PROVIDERS, type CredentialProvider }

const GUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
const Secret = (maxLength: number) => Type.String({ minLength: 1, maxLength })

export const AwsCredentials = Type.Object(
  {
    accessKeyId: Type.String({ pattern: '^[A-Z0-9]{16,128}$' }),
    secretAccessKey: Secret(1024),
    region: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+$', maxLength: 32 })),
    sessionToken: Type.Optional(Secret(8192)),
  },
  { additionalProperties: false },
)

export const AzureCredentials = Type.Object(
  {
    subscriptionId: Type.String({ pattern: GUID }),
    /** A GUID or the tenant's domain name. */
    tenantId: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$' }),
    clientId: Type.String({ pattern: GUID }),
    clientSecret: Secret(1024),
  },
  { additionalProperties: false },
)

/** The JSON key file of a Google service account (other members of the file are kept). */
export const ServiceAccountKey = Type.Object(
  {
    type: StringEnum(['service_account'] as const),
    project_id: Type.String({ minLength: 1, maxLength: 64 }),
    private_key: Type.String({ pattern: '^-----BEGIN PRIVATE KEY-----', maxLength: 16 * 1024 }),
    client_email: Type.String({ format: 'email', maxLength: 320 }),
  },
  { additionalProperties: Type.String({ maxLength: 4096 }) },
)

export const GcpCredentials = Type.Object(
  {
    projectId: Type.String({ pattern: '^[a-z][a-z0-9-]{4,28}[a-z0-9]$' }),
    serviceAccountKey: ServiceAccountKey,
  },
  { additionalProperties: false },
)

/** Field `credentials` by provider; validated in the handler once the provider is known. */
export const CREDENTIALS_BY_PROVIDER: Record<CredentialProvider, TSchema> = {
  aws: AwsCredentials,
  azure: AzureCredentials,
  gcp: GcpCredentials,
}
export type AwsCredentials = Static<typeof AwsCredentials>
export type AzureCredentials = Static<typeof AzureCredentials>
export type GcpCredentials = Static<typeof GcpCredentials>
export type Credentials = AwsCredentials | AzureCredentials | GcpCredentials

const CredentialsField = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'Secret values, by provider: AwsCredentials, AzureCredentials or GcpCredentials. Write-only.',
  },
)

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })

export const CredentialCreate = Type.Object(
  {
    name: Name,
    provider: StringEnum(CREDENTIAL_PROVIDERS),
    credentials: CredentialsField,
    /** The team it belongs to (its editors create it; its environments may use it); absent: the caller's own. */
    team: Type.Optional(TeamName),
  },
  { additionalProperties: false },
)

export const CredentialUpdate = Type.Object(
  { name: Type.Optional(Name), credentials: Type.Optional(CredentialsField) },
  { additionalProperties: false },
)

/** Non-secret values kept in the clear beside the encrypted secret. */
export const Metadata = Type.Object({
  region: Type.Optional(Type.String()),
  /** First 4 and last 4 characters. */
  accessKeyId: Type.Optional(Type.String()),
  tenantId: Type.Optional(Type.String()),
  subscriptionId: Type.Optional(Type.String()),
  projectId: Type.Optional(Type.String()),
  client_email: Type.Optional(Type.String()),
})
export type Metadata = Static<typeof Metadata>

const Timestamp = Type.String({ format: 'date-time' })
const Base = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  provider: StringEnum(CREDENTIAL_PROVIDERS),
}

const CheckedAt = Type.String({ format: 'date-time', description: 'When the check was made.' })
export const ValidationResult = Type.Union([
  Type.Object({ valid: Type.Literal(true), identity: Type.Object({ arn: Type.String(), accountId: Type.String() }), checkedAt: CheckedAt }),
  Type.Object({
    valid: Type.Literal(false),
    error: Type.String(),
    unreachable: Type.Optional(
      Type.Literal(true, { description: 'The provider could not be reached: the credential was not judged (could not check).' }),
    ),
    checkedAt: CheckedAt,
  }),
])
export type ValidationResult = Static<typeof ValidationResult>

/** The last check of the credential (POST /:id/validate), kept with it. */
const LastValidation = { lastValidation: Type.Optional(ValidationResult) }
/** The team a credential belongs to; absent for the caller's own. */
const TeamField = { team: Type.Optional(TeamName) }

export const CredentialCreated = Type.Object({ ...Base, ...TeamField, createdAt: Timestamp, updatedAt: Timestamp })

export const CredentialSummary = Type.Object({
  ...Base,
  ...TeamField,
  isDefault: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  ...LastValidation,
})
export const CredentialDetail = Type.Object({
  ...Base,
  ...TeamField,
  isDefault: Type.Boolean(),
  metadata: Metadata,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  ...LastValidation,
})
export const CredentialUpdated = Type.Object({ ...Base, updatedAt: Timestamp })

export const ListQuery = Type.Object(
  { ...PageQuery, provider: Type.Optional(StringEnum(CREDENTIAL_PROVIDERS)) },
  { additionalProperties: false },
)

export const IdParams = Type.Object({ id: Type.String() })
