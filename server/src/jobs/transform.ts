// The spec's "Transform from stored environment to processor input", in one place:
//  1. the Terraform state key is `env/<environment_id>/aws.tfstate` (the legacy fixed key for
//     environments created before per-environment keys),
//  2. `useLockfile` is forced to `true` (native S3 locking, no lock table),
//  3. from the Git configuration only `url`, `branch` and `branches` (never the deploy key),
//  4. `domain` is `""` when the environment has none.
import { stateKeyOf, type EnvironmentRecord } from '../../../plugins/environments/repository.ts'

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

export function processorInput(env: EnvironmentRecord): ProcessorInput {
  const input: ProcessorInput = {
    name: env.name,
    globalPrefix: env.globalPrefix,
    provider: env.provider,
    region: env.region,
    domain: env.domain ?? '',
    services: structuredClone(env.services ?? {}),
    terraformBackend: {
      ...(env.terraformBackend?.bucket !== undefined && { bucket: env.terraformBackend.bucket }),
      region: env.terraformBackend?.region ?? env.region,
      key: stateKeyOf(env),
      useLockfile: true,
    },
  }
  const git = env.gitRepository
  if (git) {
    input.gitRepository = {
      url: git.url,
      ...(git.branch !== undefined && { branch: git.branch }),
      ...(git.branches !== undefined && { branches: [...git.branches] }),
    }
  }
  return input
}
