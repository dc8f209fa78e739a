// The wizard's state and how it becomes a request: a create body (POST /environments) or a JSON
// merge patch (PUT /environments/:id) that never repeats the immutable name and global prefix and
// sends the deploy key only when the user typed a new one.
import { environmentValues } from '@ies/api/environment-values'
import type { Environment, EnvironmentInput, Provider, ServicesConfig, TerraformBackend } from '../api/types.ts'
import { checkDriftCheckHours } from '../environments/rules.ts'

export type BackendMode = 'none' | 'existing' | 'create'

export interface WizardValues {
  name: string
  globalPrefix: string
  provider: Provider
  region: string
  domain: string
  /** The environment's labels (the wizard edits `tier`; other keys are kept as they are). */
  labels: Record<string, string>
  services: ServicesConfig
  backendMode: BackendMode
  terraformBackend: { bucket: string; key: string; region: string; useLockfile: boolean }
  gitRepository: { url: string; branch: string; deployKey: string; hasDeployKey: boolean }
  cloudCredentialId: string
  /** The team it belongs to; '' for the user's own. Chosen at creation (a move is a separate change). */
  team: string
  /** Check for drift every this many hours, as typed; '' for no schedule (checked only when asked). */
  driftCheckHours: string
}

export const WIZARD_STEPS = ['Basics', 'Services', 'State backend', 'Git repository', 'Cloud credential', 'Review'] as const

export function emptyValues(defaults: { provider: Provider; globalPrefix?: string; region?: string }): WizardValues {
  return {
    name: '',
    globalPrefix: defaults.globalPrefix ?? '',
    provider: defaults.provider,
    region: defaults.region ?? '',
    domain: '',
    labels: {},
    services: {},
    backendMode: 'none',
    terraformBackend: { bucket: '', key: '', region: '', useLockfile: true },
    gitRepository: { url: '', branch: 'main', deployKey: '', hasDeployKey: false },
    cloudCredentialId: '',
    team: '',
    driftCheckHours: '',
  }
}

export function valuesFromEnvironment(env: Environment): WizardValues {
  const values = environmentValues<ServicesConfig>(env)
  const tb = values.terraformBackend
  return {
    ...values,
    provider: env.provider,
    labels: { ...(env.labels as Record<string, string> | undefined) },
    backendMode: tb.bucket ? 'existing' : 'none',
    terraformBackend: {
      bucket: tb.bucket ?? '',
      key: tb.key ?? '',
      region: tb.region ?? '',
      useLockfile: env.terraformBackend?.useLockfile ?? true,
    },
    gitRepository: {
      url: values.gitRepository?.url ?? '',
      branch: values.gitRepository?.branch ?? 'main',
      deployKey: '',
      hasDeployKey: env.gitRepository?.hasDeployKey === true,
    },
    cloudCredentialId: env.cloudCredentialId ?? '',
    team: env.team ?? '',
    driftCheckHours: env.driftCheckHours ? String(env.driftCheckHours) : '',
  }
}

/** Service values the API accepts: nulls (a catalog field without default) are left out; every service says whether it is enabled. */
function cleanServices(services: ServicesConfig): EnvironmentInput['services'] {
  const out: EnvironmentInput['services'] = {}
  for (const [key, values] of Object.entries(services)) {
    const kept = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined))
    out[key] = { ...kept, enabled: kept.enabled === true }
  }
  return out
}

/**
 * The state bucket IES proposes when the user leaves the name empty ("Create one for me"):
 * `<prefix>-<name>-tfstate`, lowercased, other characters as hyphens, at most 63 characters; empty
 * while prefix and name give nothing usable.
 */
export function suggestedBucket(v: Pick<WizardValues, 'globalPrefix' | 'name'>): string {
  const base = [v.globalPrefix, v.name, 'tfstate']
    .map((part) =>
      part
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, ''),
    )
    .filter(Boolean)
    .join('-')
  const name = base.slice(0, 63).replace(/-+$/, '')
  return /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) && name !== 'tfstate' ? name : ''
}

/**
 * "Create one for me" chosen and the bucket not created yet (creating it switches the step to "Use an
 * existing bucket"): the bucket that does not exist (the typed name, else the proposed one; empty when
 * neither is known) and whether the environment stores that name. Null in any other case.
 */
export function uncreatedBucket(v: WizardValues): { bucket: string; stored: boolean } | null {
  if (v.backendMode !== 'create') return null
  const typed = v.terraformBackend.bucket
  return { bucket: typed || suggestedBucket(v), stored: typed !== '' }
}

function backendOf(v: WizardValues): TerraformBackend | undefined {
  if (v.backendMode === 'none' || !v.terraformBackend.bucket) return undefined
  const tb: TerraformBackend = { bucket: v.terraformBackend.bucket, useLockfile: v.terraformBackend.useLockfile }
  if (v.terraformBackend.key) tb.key = v.terraformBackend.key
  if (v.terraformBackend.region) tb.region = v.terraformBackend.region
  return tb
}

function gitOf(v: WizardValues) {
  if (!v.gitRepository.url) return undefined
  const git: { url: string; branch?: string; deployKey?: string } = { url: v.gitRepository.url }
  if (v.gitRepository.branch) git.branch = v.gitRepository.branch
  if (v.gitRepository.deployKey) git.deployKey = v.gitRepository.deployKey
  return git
}

/** The schedule's hours as the API takes them; undefined for none (or while the typed value is refused). */
export function driftCheckHoursOf(v: WizardValues): number | undefined {
  const typed = v.driftCheckHours ?? ''
  return typed.trim() !== '' && checkDriftCheckHours(typed) === null ? Number(typed) : undefined
}

export function toCreateRequest(v: WizardValues): EnvironmentInput {
  const body: EnvironmentInput = {
    name: v.name,
    globalPrefix: v.globalPrefix,
    provider: v.provider,
    region: v.region,
    domain: v.domain,
    services: cleanServices(v.services),
  }
  const tb = backendOf(v)
  if (tb) body.terraformBackend = tb
  const git = gitOf(v)
  if (git) body.gitRepository = git
  if (v.cloudCredentialId) body.cloudCredentialId = v.cloudCredentialId
  if (v.team) body.team = v.team
  const hours = driftCheckHoursOf(v)
  if (hours !== undefined) body.driftCheckHours = hours
  const labels = Object.fromEntries(Object.entries(v.labels ?? {}).filter(([, value]) => value !== ''))
  if (Object.keys(labels).length > 0) body.labels = labels as EnvironmentInput['labels']
  return body
}

/** A merge patch of every mutable field; `null` removes what the user cleared. */
export function toUpdatePatch(v: WizardValues): Record<string, unknown> {
  const { name: _n, globalPrefix: _g, team: _t, ...rest } = toCreateRequest(v)
  return {
    ...rest,
    // A label the user cleared is removed (merge patch: null).
    labels: Object.fromEntries(Object.entries(v.labels ?? {}).map(([key, value]) => [key, value === '' ? null : value])),
    terraformBackend: backendOf(v) ?? null,
    gitRepository: gitOf(v) ?? null,
    cloudCredentialId: v.cloudCredentialId || null,
    driftCheckHours: driftCheckHoursOf(v) ?? null,
  }
}

/** The review's picture of the configuration: the request, with the deploy key shown as set, never as text. */
export function reviewOf(v: WizardValues, editing: boolean): Record<string, unknown> {
  const body: Record<string, any> = editing ? { name: v.name, globalPrefix: v.globalPrefix, ...toUpdatePatch(v) } : toCreateRequest(v)
  if (body.gitRepository?.deployKey) body.gitRepository = { ...body.gitRepository, deployKey: '(new key, write-only)' }
  else if (body.gitRepository && v.gitRepository.hasDeployKey)
    body.gitRepository = { ...body.gitRepository, deployKey: '(stored, unchanged)' }
  return body
}

/**
 * The values a draft may keep: everything but secrets. The deploy key is write-only and is never
 * written to browser storage; `leftOut` names it when the user had typed one, so the reopened draft
 * can ask for it again.
 */
export function draftValuesOf(v: WizardValues): { values: WizardValues; leftOut: string[] } {
  if (!v.gitRepository.deployKey) return { values: v, leftOut: [] }
  return { values: { ...v, gitRepository: { ...v.gitRepository, deployKey: '' } }, leftOut: ['deploy key'] }
}

/** The wizard step that holds a field the server named (`services.rds.instanceClass` -> Services). */
export function stepOfField(field: string): number {
  const head = field.split('.')[0]
  if (head === 'labels') return 0
  if (head === 'services') return 1
  if (head === 'terraformBackend') return 2
  if (head === 'gitRepository') return 3
  if (head === 'cloudCredentialId' || head === 'driftCheckHours') return 4
  return 0
}
