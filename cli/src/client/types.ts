// The API's resources as the client sees them, taken from the server's own TypeBox schemas
// (plugins/*/schemas.ts, the source of /api/openapi.json): one source of truth for the API's types.
// Type-only imports: nothing of the server is loaded at run time, so a browser bundle can use this too.
import type { Static } from '@sinclair/typebox'
import type * as environments from '../../../plugins/environments/schemas.ts'
import type * as credentials from '../../../plugins/cloud-credentials/schemas.ts'
import type * as jobs from '../../../plugins/jobs/schemas.ts'
import type * as generation from '../../../plugins/generation/schemas.ts'
import type * as users from '../../../plugins/users/schemas.ts'
import type * as envelope from '../../../server/src/core/envelope.ts'

export type Environment = Static<typeof environments.Environment>
export type EnvironmentInput = Static<typeof environments.EnvironmentInput>
export type EnvironmentSummary = Static<typeof environments.EnvironmentSummary>
export type EnvironmentListQuery = Static<typeof environments.ListQuery>
export type Provider = Static<typeof environments.Provider>

export type CredentialCreate = Static<typeof credentials.CredentialCreate>
export type CredentialCreated = Static<typeof credentials.CredentialCreated>
export type CredentialSummary = Static<typeof credentials.CredentialSummary>
export type CredentialDetail = Static<typeof credentials.CredentialDetail>
export type CredentialValidation = Static<typeof credentials.ValidationResult>
export type CredentialListQuery = Static<typeof credentials.ListQuery>
export type CredentialUpdate = Static<typeof credentials.CredentialUpdate>
export type CredentialUpdated = Static<typeof credentials.CredentialUpdated>

export type Job = Static<typeof jobs.Job>
export type JobFiles = Static<typeof jobs.JobFiles>
export type GenerateBody = Static<typeof generation.GenerateBody>
export type GenerateOptions = Static<typeof jobs.GenerateOptions>
export type GeneratedFiles = Static<typeof generation.GeneratedFiles>
export type Upgradable = Static<typeof generation.Upgradable>
export type UpgradeJobs = Static<typeof generation.UpgradeJobs>
export type RolloutView = Static<typeof generation.RolloutView>
/** The bulk upgrade body; `dryRun` and `strategy` are optional here whatever defaults the server fills in. */
export type UpgradeBody = Omit<Static<typeof generation.UpgradeBody>, 'dryRun' | 'strategy'> & { dryRun?: boolean; strategy?: PushStrategy }
export type { Catalog as CatalogDocument } from '@ies/processor-lib/contract/document'
export type User = Static<typeof users.User>
export type Preferences = Static<typeof users.Preferences>

export type Pagination = Static<typeof envelope.Pagination>
export type ErrorDetail = Static<typeof envelope.ErrorDetail>

/** How a push lands: merged onto the environment's branch, or onto a new branch. */
export type PushStrategy = 'merge' | 'branch'

/** The push body; `dryRun` and `strategy` are optional here whatever defaults the server fills in. */
export type PushBody = Omit<Partial<Static<typeof generation.PushBody>>, 'dryRun' | 'strategy'> & {
  dryRun?: boolean
  strategy?: PushStrategy
}

/** A file whose branch and generated versions changed the same lines (strategy "merge" fails on it). */
export interface PushConflict {
  file: string
  kind: string
  hunks?: Array<{ line: number; ours: string; base: string; theirs: string }>
}

/** One file of a push dry run: what the push would change on the branch. */
export interface PushChange {
  path: string
  change: 'added' | 'modified' | 'deleted' | string
  /** Unified diff of the file (hunks). */
  diff: string
  truncated: boolean
}

/** The result of a push job run with `dryRun: true`: nothing was pushed. */
export interface PushDryRunResult {
  dryRun: true
  branch: string
  strategy?: PushStrategy
  changes: PushChange[]
  conflicts?: PushConflict[]
}
