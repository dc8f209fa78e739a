// The spec's "Transform from stored environment to processor input", in one place:
//  1. the Terraform state key is `env/<environment_id>/aws.tfstate` (the legacy fixed key for
//     environments created before per-environment keys),
//  2. `useLockfile` is forced to `true` (native S3 locking, no lock table),
//  3. from the Git configuration only `url`, `branch` and `branches` (never the deploy key),
//  4. `domain` is `""` when the environment has none.
// Rules 3 and 4 are the reading of an environment the desktop's wizard shares (`@ies/api/environment-values`).
import { environmentValues } from '@ies/api/environment-values'

/**
 * What the jobs read of a stored environment: the environments plugin's record has (at least) these
 * fields. Declared here so the jobs depend on no plugin; the plugin's record type satisfies it.
 */
export interface JobEnvironment {
  _id: string
  userId: string
  name: string
  globalPrefix: string
  provider: string
  region: string
  domain?: string
  services?: Record<string, unknown>
  terraformBackend?: { bucket?: string; key?: string; region?: string }
  gitRepository?: { url: string; branch?: string; branches?: string[] }
  /** `environment` for every record made since per-environment state keys; absent before. */
  stateKeyScope?: 'environment'
  /** The ids of the templates' migrations its configuration has run (generation/migrations.ts). */
  migrations?: string[]
  /** The templates version the environment is pinned to (a commit or tag); absent: it follows the newest. */
  templatesPin?: string
}

/** The templates version a job generates with: the one asked for (an upgrade's), else the environment's pin, else the newest. */
export const templatesVersionOf = (env: Pick<JobEnvironment, 'templatesPin'>, asked?: string): string | undefined =>
  asked ?? env.templatesPin ?? undefined

/** Terraform state key of environments created before per-environment keys (spec "Transform", rule 1). */
export const LEGACY_STATE_KEY = 'aws.tfstate'

/** True when the environment predates per-environment Terraform state keys. */
export function usesLegacyStateKey(env: Pick<JobEnvironment, 'stateKeyScope'>): boolean {
  return env.stateKeyScope !== 'environment'
}

/** The Terraform state key of an environment (spec "Transform", rule 1). */
export function stateKeyOf(env: Pick<JobEnvironment, '_id' | 'stateKeyScope' | 'terraformBackend'>): string {
  if (usesLegacyStateKey(env)) return env.terraformBackend?.key ?? LEGACY_STATE_KEY
  return `env/${env._id}/aws.tfstate`
}

export interface ProcessorInput {
  name: string
  globalPrefix: string
  provider: string
  region: string
  domain: string
  services: Record<string, unknown>
  terraformBackend: { bucket?: string; region?: string; key: string; useLockfile: true }
  gitRepository?: { url: string; branch?: string; branches?: string[] }
}

export function processorInput(env: JobEnvironment): ProcessorInput {
  const { terraformBackend, gitRepository, ...values } = environmentValues(env)
  return {
    ...values,
    terraformBackend: {
      ...(terraformBackend.bucket !== undefined && { bucket: terraformBackend.bucket }),
      region: terraformBackend.region ?? env.region,
      key: stateKeyOf(env),
      useLockfile: true,
    },
    ...(gitRepository && { gitRepository }),
  }
}
