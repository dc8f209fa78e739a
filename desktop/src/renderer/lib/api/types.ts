// The API's resources as the UI reads them: the API contract's types and value lists (@ies/api),
// and the few shapes the UI reads more loosely than the schemas state.
import type * as api from '@ies/api'

export {
  CREDENTIAL_PROVIDERS,
  ENVIRONMENT_STATUSES as STATUSES,
  GENERATE_FORMATS,
  PROVIDERS,
  THEMES,
  TIERS,
  type CredentialProvider,
  type GenerateFormat,
  type Provider,
  type Theme,
} from '@ies/api'

export type ServiceValues = Record<string, unknown>
export type ServicesConfig = Record<string, ServiceValues>

export type Environment = api.Environment
export type EnvironmentSummary = api.EnvironmentSummary
export type EnvironmentInput = api.EnvironmentInput
/** A bulk upgrade in waves as the server tracks it. */
export type Rollout = api.RolloutView
export type TerraformBackend = NonNullable<api.Environment['terraformBackend']>
export type GitRepository = NonNullable<api.EnvironmentInput['gitRepository']> & { hasDeployKey?: boolean }
/** A credential as listed, or as the create answer gives it (without the list's `isDefault` and validation). */
export type CloudCredential = api.CredentialCreated & Partial<Omit<api.CredentialSummary, keyof api.CredentialCreated>>
export type CredentialDetail = api.CredentialDetail
export type CredentialValidation = api.CredentialValidation
export type JobStatus = api.Job['status']
export type JobFiles = api.JobFiles
export type Preferences = api.Preferences
export type User = api.User
export type Team = api.Team
export type TeamMember = api.TeamMember
export type TeamRole = api.TeamRole
export type Pagination = api.Pagination
export type GenerateRequest = Required<api.GenerateBody>
export type HistoryEntry = api.HistoryEntry
export type HistoryEntryDetail = api.HistoryEntryDetail

export interface JobFinding {
  file?: string
  line?: number
  code?: string
  message: string
}

/**
 * A job as the UI reads it: the schema's fields, with `result` and `error` read defensively (they
 * differ by job type, and the UI must show what an older or newer server sends).
 */
export interface Job extends Pick<api.Job, 'id' | 'type'>, Partial<Omit<api.Job, 'id' | 'type' | 'status' | 'error' | 'result'>> {
  status: JobStatus
  error?: { code?: string; message: string; details?: JobFinding[] | Record<string, unknown> }
  result?: Record<string, unknown>
}

/** The archive's file name as the server names it (environment, format and templates commit). */
export function archiveFilename(job: Job): string | undefined {
  const name = (job.result?.archive as { filename?: unknown } | undefined)?.filename
  return typeof name === 'string' && name ? name : undefined
}
