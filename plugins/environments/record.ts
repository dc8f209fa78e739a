// An environment as the repository keeps it (the validated input without the deploy key, plus the
// service's own fields), and the forms it is turned into: the API's environment, a merge patch's input.
import type { EncryptedSecret } from '@ies/server/core/crypto'
import type { Environment, EnvironmentInput } from '@ies/api/schemas/environments'
import type { EnvironmentStatus } from '@ies/api/values'

export const DEPLOY_KEY_PURPOSE = 'environment.deployKey'

/** What is stored: the validated input without the deploy key, plus the service's own fields. */
export interface EnvironmentRecord extends Omit<EnvironmentInput, 'gitRepository' | 'domain' | 'services' | 'helmCharts' | 'team'> {
  _id: string
  /** The owner key: the owning user's id, or `team:<team id>` for a team's environment (access.ts). */
  userId: string
  /** Who created it (a team's environment; a personal one's creator is its owner). */
  createdBy?: string
  domain: string
  services: NonNullable<EnvironmentInput['services']>
  helmCharts: NonNullable<EnvironmentInput['helmCharts']>
  gitRepository?: Omit<NonNullable<EnvironmentInput['gitRepository']>, 'deployKey'>
  deployKey?: EncryptedSecret
  status: EnvironmentStatus
  /**
   * `environment` for every record this service creates: the state key is `env/<id>/aws.tfstate`.
   * Records without it predate per-environment keys and use the legacy fixed key.
   */
  stateKeyScope?: 'environment'
  /**
   * 1 on create, +1 on every write; a write is conditional on the version it read. Records written
   * before the field have none (read as 0; their first write is conditional on its absence).
   */
  version?: number
  /**
   * The ids of the templates' migrations its configuration has run (server/src/jobs/generation/migrations.ts):
   * on create, every migration of the templates then; a push adds the ones it applied.
   */
  migrations?: string[]
  createdAt: Date
  updatedAt: Date
}

export function toEnvironment(doc: EnvironmentRecord): Environment {
  return {
    id: doc._id,
    name: doc.name,
    globalPrefix: doc.globalPrefix,
    provider: doc.provider,
    region: doc.region,
    domain: doc.domain ?? '',
    ...(doc.labels && Object.keys(doc.labels).length > 0 && { labels: doc.labels }),
    services: doc.services ?? {},
    helmCharts: doc.helmCharts ?? {},
    ...(doc.terraformBackend && { terraformBackend: doc.terraformBackend }),
    ...(doc.gitRepository && { gitRepository: { ...doc.gitRepository, hasDeployKey: Boolean(doc.deployKey) } }),
    ...(doc.cloudCredentialId && { cloudCredentialId: doc.cloudCredentialId }),
    ...(doc.migrations && { migrations: doc.migrations }),
    ...(doc.templatesPin && { templatesPin: doc.templatesPin }),
    ...(doc.driftCheckHours && { driftCheckHours: doc.driftCheckHours }),
    status: doc.status,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  }
}

/** The stored record as an input document (what a merge patch applies to); the deploy key stays out. */
export function inputOf(doc: EnvironmentRecord): Record<string, unknown> {
  const { _id, userId, createdBy, deployKey, status, stateKeyScope, version, migrations, createdAt, updatedAt, ...input } = doc
  return structuredClone(input)
}
