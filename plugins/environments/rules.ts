// The environment rules a JSON Schema cannot state: chart values must parse as YAML,
// `cloudCredentialId` must name one of the caller's credentials for the environment's provider, and a
// Git repository URL must be one a push may use (no credentials in it; `http://` only to a host in
// PUSH_ALLOWED_HOSTS, e.g. an on-premise or loopback Git server).
import { parseDocument } from 'yaml'
import type { FieldError } from '@ies/server/core/errors'
import { urlProblem } from '@ies/server/jobs/destination'
import type { CloudCredentialRepository } from '../cloud-credentials/repository.ts'
import type { EnvironmentInput } from './schemas.ts'

/** Field errors for chart values that are not YAML; only the position is reported, never the text. */
export function helmValuesErrors(input: EnvironmentInput): FieldError[] {
  const errors: FieldError[] = []
  for (const [chart, { values }] of Object.entries(input.helmCharts ?? {})) {
    const doc = parseDocument(values ?? '')
    const first = doc.errors[0]
    if (first) {
      const at = first.linePos?.[0]
      errors.push({ field: `helmCharts.${chart}.values`, message: `must be valid YAML${at ? ` (line ${at.line}, column ${at.col})` : ''}` })
    }
  }
  return errors
}

export async function credentialReferenceErrors(
  userId: string,
  input: EnvironmentInput,
  credentials: CloudCredentialRepository,
): Promise<FieldError[]> {
  if (!input.cloudCredentialId) return []
  if (await credentials.ownsForProvider(userId, input.cloudCredentialId, input.provider)) return []
  return [{ field: 'cloudCredentialId', message: `must name one of your cloud credentials for provider ${input.provider}` }]
}

export function gitRepositoryUrlErrors(input: EnvironmentInput, pushAllowedHosts: readonly string[]): FieldError[] {
  const url = input.gitRepository?.url
  const problem = url ? urlProblem(url, pushAllowedHosts) : null
  return problem ? [{ field: 'gitRepository.url', message: problem }] : []
}
