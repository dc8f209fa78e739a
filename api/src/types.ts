// The API's resources as a client sees them: the Static types of the TypeBox schemas in ./schemas/
// (the server validates and documents /api/openapi.json with the same). Type-only imports, so a
// client that needs only the types bundles no TypeBox.
import type { Static } from '@sinclair/typebox'
import type * as environments from './schemas/environments.ts'
import type * as credentials from './schemas/cloud-credentials.ts'
import type * as jobs from './schemas/jobs.ts'
import type * as generation from './schemas/generation.ts'
import type * as upgrades from './schemas/upgrades.ts'
import type * as users from './schemas/users.ts'
import type * as teams from './schemas/teams.ts'
import type * as history from './schemas/history.ts'
import type * as push from './schemas/push.ts'
import type * as policies from './schemas/policies.ts'
import type * as plans from './schemas/plans.ts'
import type * as approvals from './schemas/approvals.ts'
import type * as terraformBackend from './schemas/terraform-backend.ts'
import type * as jobHistory from './schemas/job-history.ts'
import type { PushStrategy } from './values.ts'

export type Environment = Static<typeof environments.Environment>
export type EnvironmentInput = Static<typeof environments.EnvironmentInput>
export type EnvironmentSummary = Static<typeof environments.EnvironmentSummary>
export type EnvironmentListQuery = Static<typeof environments.ListQuery>
export type PolicyResult = Static<typeof policies.PolicyResult>
export type PolicyViolation = Static<typeof policies.PolicyViolation>

export type CredentialCreate = Static<typeof credentials.CredentialCreate>
export type CredentialCreated = Static<typeof credentials.CredentialCreated>
export type CredentialSummary = Static<typeof credentials.CredentialSummary>
export type CredentialDetail = Static<typeof credentials.CredentialDetail>
export type CredentialValidation = Static<typeof credentials.ValidationResult>
export type CredentialListQuery = Static<typeof credentials.ListQuery>
export type CredentialUpdate = Static<typeof credentials.CredentialUpdate>
export type CredentialUpdated = Static<typeof credentials.CredentialUpdated>

export type Job = Static<typeof jobs.Job>
export type Approval = Static<typeof approvals.Approval>
export type TeamSettings = Static<typeof teams.TeamSettingsInput>
export type JobFiles = Static<typeof jobs.JobFiles>
export type GenerateBody = Static<typeof generation.GenerateBody>
export type GenerateOptions = Static<typeof generation.GenerateOptions>
export type GeneratedFiles = Static<typeof generation.GeneratedFiles>
export type Upgradable = Static<typeof upgrades.Upgradable>
export type UpgradeJobs = Static<typeof upgrades.UpgradeJobs>
export type RolloutView = Static<typeof upgrades.RolloutView>
/** The bulk upgrade body; `dryRun` and `strategy` are optional here whatever defaults the server fills in. */
export type UpgradeBody = Omit<Static<typeof upgrades.UpgradeBody>, 'dryRun' | 'strategy'> & { dryRun?: boolean; strategy?: PushStrategy }
export type { Catalog as CatalogDocument } from '@ies/processor-lib/contract/document'
export type User = Static<typeof users.User>
export type Team = Static<typeof teams.Team>
export type TeamMember = Static<typeof teams.Member>
export type TeamRole = TeamMember['role']
export type Preferences = Static<typeof users.Preferences>
export type UserListQuery = Static<typeof users.UserListQuery>

/** The state bucket to create or adopt, and the `terraformBackend` the server answers for it. */
export type TerraformBackendCreate = Static<typeof terraformBackend.TerraformBackendCreate>
export type CreatedTerraformBackend = Static<typeof terraformBackend.CreatedTerraformBackend>
/** A page of an environment's jobs and where the next one starts (null on the last page). */
export type JobHistoryQuery = Static<typeof jobHistory.JobHistoryQuery>
export type JobHistoryPage = Static<typeof jobHistory.JobHistoryPage>

/** One change of an environment (its history, newest first); the detail adds the configuration after it. */
export type HistoryEntry = Static<typeof history.HistoryEntry>
export type HistoryEntryDetail = Static<typeof history.HistoryEntryDetail>

/** What the templates' migrations change in a configuration (a push, or its dry run). */
export type ConfigurationChange = Static<typeof push.ConfigurationChange>
export type LastPush = Static<typeof push.LastPush>
export type Behind = Static<typeof push.Behind>

/** The push body; `dryRun` and `strategy` are optional here whatever defaults the server fills in. */
export type PushBody = Omit<Partial<Static<typeof push.PushBody>>, 'dryRun' | 'strategy'> & {
  dryRun?: boolean
  strategy?: PushStrategy
}

/** A file whose branch and generated versions changed the same lines (strategy "merge" fails on it). */
export type PushConflict = Static<typeof push.FileConflict>
/** One hunk of a conflict: where, and the lines as the branch, the last push and the new generation have them. */
export type ConflictHunk = Static<typeof push.ConflictHunk>
/** One file of a push dry run: what the push would change on the branch. */
export type PushChange = Static<typeof push.FileChange>
/** The result of a push job run with `dryRun: true`: nothing was pushed. */
export type PushDryRunResult = Static<typeof push.DryRunResult>

/** A Terraform plan (or drift check) of an environment: a plan or drift job's result, a dry run's `plan`. */
export type PlanResult = Static<typeof plans.PlanResult>
export type PlanResource = Static<typeof plans.PlanResource>
export type PlanSummary = Static<typeof plans.PlanSummary>
