// The environment rules a JSON Schema cannot state: chart values must parse as YAML (checked off the
// request thread within a time limit, aliases expanded at most MAX_ALIAS_COUNT times: chart-values.ts),
// `cloudCredentialId` must name one of the caller's credentials for the environment's provider, and a
// Git repository URL must be one a push may use (no credentials in it; `http://` only to a host in
// PUSH_ALLOWED_HOSTS, e.g. an on-premise or loopback Git server).
import type { FieldError } from '@ies/server/core/errors'
import { destinationProblem } from '@ies/server/jobs/push/destination'
import { ChartValuesChecker } from './chart-values.ts'
import type { EnvironmentInput } from '@ies/api/schemas/environments'

/** One checker (one worker thread) per time limit, shared by every app of the process. */
const checkers = new Map<number, ChartValuesChecker>()

/** Field errors for chart values that are not YAML; only the position is reported, never the text. */
export async function helmValuesErrors(input: EnvironmentInput, timeoutMs: number): Promise<FieldError[]> {
  const charts = Object.entries(input.helmCharts ?? {}).filter(([, chart]) => chart.values)
  if (charts.length === 0) return []
  let checker = checkers.get(timeoutMs)
  if (!checker) checkers.set(timeoutMs, (checker = new ChartValuesChecker(timeoutMs)))
  const problems = await checker.check(charts.map(([, chart]) => chart.values))
  return charts.flatMap(([chart], i) => (problems[i] ? [{ field: `helmCharts.${chart}.values`, message: problems[i] }] : []))
}

/** What the reference check asks of the cloud credentials (`app.cloudCredentials`). */
export interface CredentialOwnership {
  ownsForProvider(userId: string, id: string, provider: string): Promise<boolean>
}

export async function credentialReferenceErrors(
  userId: string,
  input: EnvironmentInput,
  credentials: CredentialOwnership,
): Promise<FieldError[]> {
  if (!input.cloudCredentialId) return []
  if (await credentials.ownsForProvider(userId, input.cloudCredentialId, input.provider)) return []
  return [{ field: 'cloudCredentialId', message: `must name one of your cloud credentials for provider ${input.provider}` }]
}

export async function gitRepositoryUrlErrors(input: EnvironmentInput, pushAllowedHosts: readonly string[]): Promise<FieldError[]> {
  const url = input.gitRepository?.url
  const problem = url ? await destinationProblem(url, pushAllowedHosts) : null
  return problem ? [{ field: 'gitRepository.url', message: problem }] : []
}
