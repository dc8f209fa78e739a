// The API's resources as the client sees them (spec "Resources and their fields").
import type { Behind, LastPush } from './push-lifecycle.ts'

export const PROVIDERS = ['aws', 'azure', 'gcp', 'onpremise'] as const
export type Provider = (typeof PROVIDERS)[number]
export const CREDENTIAL_PROVIDERS = ['aws', 'azure', 'gcp'] as const
export type CredentialProvider = (typeof CREDENTIAL_PROVIDERS)[number]
export const STATUSES = ['pending', 'deploying', 'running', 'stopped', 'failed', 'destroyed'] as const
export const THEMES = ['light', 'dark', 'system'] as const
export type Theme = (typeof THEMES)[number]

export type ServiceValues = Record<string, unknown>
export type ServicesConfig = Record<string, ServiceValues>

export interface TerraformBackend {
  bucket?: string
  key?: string
  region?: string
  useLockfile?: boolean
  [extra: string]: unknown
}

export interface GitRepository {
  url?: string
  branch?: string
  branches?: string[]
  /** Write-only: sent on create/update, never returned. */
  deployKey?: string
  hasDeployKey?: boolean
}

export interface EnvironmentSummary {
  id: string
  name: string
  provider: Provider
  region: string
  status: string
  createdAt: string
  updatedAt: string
}

export interface Environment extends EnvironmentSummary {
  globalPrefix: string
  domain?: string
  services: ServicesConfig
  helmCharts?: Record<string, { enabled: boolean; customValues: boolean; values: string }>
  terraformBackend?: TerraformBackend
  gitRepository?: GitRepository
  cloudCredentialId?: string | null
  /** The last push (null before the first one); absent on servers without the lifecycle routes. */
  lastPush?: LastPush | null
  /** Whether the templates or the configuration changed since the last push. */
  behind?: Behind
}

/** What the wizard sends: every field of an environment a user can set. */
export interface EnvironmentInput {
  name: string
  globalPrefix: string
  provider: Provider
  region: string
  domain: string
  services: ServicesConfig
  terraformBackend?: TerraformBackend
  gitRepository?: GitRepository
  cloudCredentialId?: string | null
}

export interface CloudCredential {
  id: string
  name: string
  provider: CredentialProvider
  isDefault?: boolean
  metadata?: Record<string, unknown>
  createdAt: string
  updatedAt: string
}

export type CredentialValidation =
  { valid: true; identity: { arn?: string; accountId?: string; [k: string]: unknown } } | { valid: false; error: string }

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export interface JobFinding {
  file?: string
  line?: number
  code?: string
  message: string
}

export interface Job {
  id: string
  type: string
  status: JobStatus
  error?: { code?: string; message: string; details?: JobFinding[] }
  result?: Record<string, unknown>
  [extra: string]: unknown
}

/** The archive's file name as the server names it (environment, format and templates commit). */
export function archiveFilename(job: Job): string | undefined {
  const name = (job.result?.archive as { filename?: unknown } | undefined)?.filename
  return typeof name === 'string' && name ? name : undefined
}

export const GENERATE_FORMATS = ['terraform', 'helm', 'argocd'] as const
export type GenerateFormat = (typeof GENERATE_FORMATS)[number]

export interface GenerateRequest {
  format: GenerateFormat
  options: { includeBackend: boolean; includeChart: boolean; includeGitops: boolean }
}

export interface Preferences {
  theme: Theme
  defaultProvider: Provider
}

export interface User {
  id: string
  username: string
  email: string
  preferences: Preferences
}

export interface Pagination {
  page: number
  limit: number
  total: number
  totalPages: number
}
