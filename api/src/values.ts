// The API's lists of values, written once: the server's schemas build their enums from them and the
// CLI and the desktop offer them as choices.

/** Where an environment runs. */
export const PROVIDERS = ['aws', 'azure', 'gcp', 'onpremise'] as const
export type Provider = (typeof PROVIDERS)[number]

/** The clouds a cloud credential can be for. */
export const CREDENTIAL_PROVIDERS = ['aws', 'azure', 'gcp'] as const
export type CredentialProvider = (typeof CREDENTIAL_PROVIDERS)[number]

/** An environment's status (spec "States and transitions"). */
export const ENVIRONMENT_STATUSES = ['pending', 'deploying', 'running', 'stopped', 'failed', 'destroyed'] as const
export type EnvironmentStatus = (typeof ENVIRONMENT_STATUSES)[number]

/** An environment's `tier` label: how much care its changes take (organisation rules read it). */
export const TIERS = ['production', 'staging', 'development'] as const
export type Tier = (typeof TIERS)[number]

/** What an organisation rule says of a configuration: `deny` refuses it, `warn` accepts and reports it. */
export const POLICY_LEVELS = ['deny', 'warn'] as const
export type PolicyLevel = (typeof POLICY_LEVELS)[number]

/** A user's colour theme preference. */
export const THEMES = ['light', 'dark', 'system'] as const
export type Theme = (typeof THEMES)[number]

export const JOB_TYPES = ['generate', 'push', 'plan', 'drift'] as const
export type JobType = (typeof JOB_TYPES)[number]
/** `awaiting-approval`: a push of a production environment a team member must approve before it is queued (docs/teams.md). */
export const JOB_STATUSES = ['awaiting-approval', 'queued', 'running', 'succeeded', 'failed'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]

/** What a generation produces. */
export const GENERATE_FORMATS = ['terraform', 'helm', 'argocd'] as const
export type GenerateFormat = (typeof GENERATE_FORMATS)[number]

/** How a push lands: merged onto the environment's branch, or onto a new branch. */
export const PUSH_STRATEGIES = ['merge', 'branch'] as const
export type PushStrategy = (typeof PUSH_STRATEGIES)[number]

/** Why a push could not merge a file (PUSH_CONFLICT details). */
export const CONFLICT_KINDS = ['content', 'deleted-in-templates', 'deleted-in-branch', 'binary', 'file-folder'] as const
export type ConflictKind = (typeof CONFLICT_KINDS)[number]

/** What a plan does to one resource (a replacement destroys and creates it). */
export const PLAN_ACTIONS = ['create', 'update', 'replace', 'delete', 'no-op'] as const
export type PlanAction = (typeof PLAN_ACTIONS)[number]
