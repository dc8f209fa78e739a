// The API's resources as the client sees them (spec "Resources and their fields").
import type * as api from '@ies/cli/client/types'

export const PROVIDERS = ['aws', 'azure', 'gcp', 'onpremise'] as const
export type Provider = (typeof PROVIDERS)[number]
export const CREDENTIAL_PROVIDERS = ['aws', 'azure', 'gcp'] as const
export type CredentialProvider = (typeof CREDENTIAL_PROVIDERS)[number]
export const STATUSES = ['pending', 'deploying', 'running', 'stopped', 'failed', 'destroyed'] as const
export const THEMES = ['light', 'dark', 'system'] as const
export type Theme = (typeof THEMES)[number]

export type ServiceValues = Record<string, unknown>
export type ServicesConfig = Record<string, ServiceValues>

// The API's resources: the CLI's typed client's types, taken from the server's TypeBox schemas
// (type-only: nothing of the server reaches the bundle). One definition, the schemas'.
export type Environment = api.Environment
export type EnvironmentSummary = api.EnvironmentSummary
export type EnvironmentInput = api.EnvironmentInput
/** A bulk upgrade in waves as the server tracks it. */
export type Rollout = api.RolloutView
export type TerraformBackend = NonNullable<api.Environment['terraformBackend']>
export type GitRepository = NonNullable<api.EnvironmentInput['gitRepository']> & { hasDeployKey?: boolean }
export type CloudCredential = api.CredentialSummary
export type CredentialDetail = api.CredentialDetail
export type CredentialValidation = api.CredentialValidation
export type JobStatus = api.Job['status']
export type JobFiles = api.JobFiles
export type Preferences = api.Preferences
export type User = api.User
export type Pagination = api.Pagination
export type GenerateRequest = Required<api.GenerateBody>

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
  error?: { code?: string; message: string; details?: JobFinding[] }
  result?: Record<string, unknown>
}

/** The archive's file name as the server names it (environment, format and templates commit). */
export function archiveFilename(job: Job): string | undefined {
  const name = (job.result?.archive as { filename?: unknown } | undefined)?.filename
  return typeof name === 'string' && name ? name : undefined
}

export const GENERATE_FORMATS = ['terraform', 'helm', 'argocd'] as const
export type GenerateFormat = (typeof GENERATE_FORMATS)[number]
