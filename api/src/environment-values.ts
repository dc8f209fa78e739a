// An environment's configuration as the templates read it, shared by the server (the spec's Transform,
// server/src/jobs/generation/transform.ts, adds the state key and native locking) and the desktop's
// wizard (which edits these values and adds what only a form holds): one place for what both read
// of a stored environment.
//  - `domain` is `""` when the environment has none,
//  - `services` is a copy (the caller may change it freely),
//  - the Terraform backend as stored (the server fills in the state key and locking),
//  - of the Git configuration only `url`, `branch` and `branches`: never the deploy key.

/** What is read of an environment: the API's `Environment` and the server's stored record both have it. */
export interface EnvironmentValuesSource<S> {
  name: string
  globalPrefix: string
  provider: string
  region: string
  domain?: string
  services?: S
  terraformBackend?: { bucket?: string; key?: string; region?: string }
  gitRepository?: { url: string; branch?: string; branches?: string[] }
}

export interface EnvironmentValues<S> {
  name: string
  globalPrefix: string
  provider: string
  region: string
  domain: string
  services: S
  terraformBackend: { bucket?: string; key?: string; region?: string }
  gitRepository?: { url: string; branch?: string; branches?: string[] }
}

export function environmentValues<S extends Record<string, unknown>>(env: EnvironmentValuesSource<S>): EnvironmentValues<S> {
  const tb = env.terraformBackend
  const git = env.gitRepository
  return {
    name: env.name,
    globalPrefix: env.globalPrefix,
    provider: env.provider,
    region: env.region,
    domain: env.domain ?? '',
    services: structuredClone(env.services ?? ({} as S)),
    terraformBackend: {
      ...(tb?.bucket !== undefined && { bucket: tb.bucket }),
      ...(tb?.key !== undefined && { key: tb.key }),
      ...(tb?.region !== undefined && { region: tb.region }),
    },
    ...(git && {
      gitRepository: {
        url: git.url,
        ...(git.branch !== undefined && { branch: git.branch }),
        ...(git.branches !== undefined && { branches: [...git.branches] }),
      },
    }),
  }
}
