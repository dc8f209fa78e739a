// What the assistant may know about a stored environment: an allowlist of non-secret fields. No
// deploy key (not even encrypted), no credential id or values, no Git URL (it may carry a token in
// its user part), no chart values text (free YAML that may hold passwords).
import type { EnvironmentRecord } from '../environments/record.ts'
import type { Draft } from '@ies/api/schemas/ai'

export interface EnvironmentView {
  id: string
  name: string
  globalPrefix: string
  provider: string
  region: string
  domain: string
  labels: Record<string, string>
  /** The team it belongs to (none: a personal one). */
  team?: string
  status: string
  services: Record<string, Record<string, unknown>>
  /** Chart names and whether each is enabled. */
  helmCharts: Record<string, { enabled: boolean }>
  hasCloudCredential: boolean
  hasTerraformBackend: boolean
  gitRepository: { configured: boolean; branch?: string; hasDeployKey: boolean }
}

export function environmentView(record: EnvironmentRecord, team?: string): EnvironmentView {
  return {
    id: record._id,
    name: record.name,
    globalPrefix: record.globalPrefix,
    provider: record.provider,
    region: record.region,
    domain: record.domain ?? '',
    labels: { ...(record.labels as Record<string, string> | undefined) },
    ...(team && { team }),
    status: record.status,
    services: structuredClone(record.services ?? {}) as Record<string, Record<string, unknown>>,
    helmCharts: Object.fromEntries(Object.entries(record.helmCharts ?? {}).map(([chart, c]) => [chart, { enabled: Boolean(c.enabled) }])),
    hasCloudCredential: Boolean(record.cloudCredentialId),
    hasTerraformBackend: Boolean(record.terraformBackend?.bucket),
    gitRepository: {
      configured: Boolean(record.gitRepository?.url),
      ...(record.gitRepository?.branch && { branch: record.gitRepository.branch }),
      hasDeployKey: Boolean(record.deployKey),
    },
  }
}

/** The environment's configuration as a draft (when the caller sent no draft of their own). */
export function draftOf(view: EnvironmentView): Draft {
  const { name, globalPrefix, provider, region, domain, labels, team, services } = view
  return { name, globalPrefix, provider, region, domain, labels: { ...labels }, ...(team && { team }), services: structuredClone(services) }
}
