// Checks a credential against its cloud: AWS through STS GetCallerIdentity (AWS SDK v3), Azure and
// Google through their OAuth 2.0 token endpoints. Every failure is a `{ valid: false, error }`
// answer, and no error text can carry a secret value (they are masked out before it is returned).
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto'
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts'
import type { Config } from '@ies/server/config'
import type {
  AwsCredentials,
  AzureCredentials,
  CredentialProvider,
  Credentials,
  GcpCredentials,
  ValidationResult,
} from '@ies/api/schemas/cloud-credentials'

type CloudConfig = Config['cloud']

const MAX_ERROR_LENGTH = 300

/** A check's answer before it is stamped with its time (the route adds `checkedAt`). */
export type CheckResult = DistributiveOmit<ValidationResult, 'checkedAt'>
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/**
 * The error text with every secret value replaced, shortened to one readable line. `unreachable`:
 * the provider was not reached, so the credential was not judged ("could not check", not "invalid").
 */
function failure(message: string, secrets: Array<string | undefined>, unreachable = false): CheckResult {
  let text = message.replace(/\s+/g, ' ').trim() || 'Validation failed'
  for (const secret of secrets) {
    if (secret && secret.length >= 4) text = text.split(secret).join('[redacted]')
  }
  return { valid: false, error: text.slice(0, MAX_ERROR_LENGTH), ...(unreachable && { unreachable: true as const }) }
}

/** Why a request did not reach the provider, in words (the system code kept in brackets). */
function unreachableReason(err: unknown): string {
  const e = err as { name?: string; code?: string; cause?: { code?: string } }
  const code = e?.code ?? e?.cause?.code
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || code === 'ETIMEDOUT') return 'the request timed out'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name does not resolve (${code})`
  if (code === 'ECONNREFUSED') return 'the connection was refused (ECONNREFUSED)'
  return describe(err)
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'The check timed out'
  const cause = e?.cause?.code ?? e?.cause?.message
  return [e?.name && e.name !== 'Error' ? `${e.name}:` : '', e?.message ?? String(err), cause ? `(${cause})` : ''].filter(Boolean).join(' ')
}

async function checkAws(c: AwsCredentials, cloud: CloudConfig): Promise<CheckResult> {
  const client = new STSClient({
    region: c.region ?? 'us-east-1',
    ...(cloud.awsEndpointUrl && { endpoint: cloud.awsEndpointUrl }),
    credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, sessionToken: c.sessionToken },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: cloud.validateTimeoutMs, requestTimeout: cloud.validateTimeoutMs },
  })
  try {
    const out = await client.send(new GetCallerIdentityCommand({}))
    if (!out.Arn || !out.Account) return failure('AWS returned no identity', [])
    return { valid: true, identity: { arn: out.Arn, accountId: out.Account } }
  } catch (err) {
    // An answer of STS carries its HTTP status; without one the request never got an answer.
    if (!(err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode) {
      return failure(`Could not reach AWS STS: ${unreachableReason(err)}`, [c.secretAccessKey, c.sessionToken], true)
    }
    return failure(describe(err), [c.secretAccessKey, c.sessionToken])
  } finally {
    client.destroy()
  }
}

/** POSTs a token request; resolves to an error text, or null when a token came back. */
async function requestToken(url: string, form: Record<string, string>, timeoutMs: number): Promise<string | null> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form),
    signal: AbortSignal.timeout(timeoutMs),
    redirect: 'error',
  })
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown; error_description?: unknown }
  if (response.ok && typeof body.access_token === 'string') return null
  const reason = [body.error, body.error_description].filter((x) => typeof x === 'string').join(': ')
  return `The token endpoint refused the credential (HTTP ${response.status})${reason ? `: ${reason}` : ''}`
}

async function checkAzure(c: AzureCredentials, cloud: CloudConfig): Promise<CheckResult> {
  const url = `${cloud.azureAuthorityHost}/${encodeURIComponent(c.tenantId)}/oauth2/v2.0/token`
  try {
    const refused = await requestToken(
      url,
      {
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        scope: 'https://management.azure.com/.default',
      },
      cloud.validateTimeoutMs,
    )
    if (refused) return failure(refused, [c.clientSecret])
    return { valid: true, identity: { arn: c.clientId, accountId: c.subscriptionId } }
  } catch (err) {
    return failure(`Could not reach the token endpoint: ${unreachableReason(err)}`, [c.clientSecret], true)
  }
}

/** A signed JWT bearer assertion (RFC 7523) for the service account, valid for five minutes. */
function assertionFor(c: GcpCredentials, key: KeyObject, audience: string): string {
  const now = Math.floor(Date.now() / 1000)
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({
    iss: c.serviceAccountKey.client_email,
    scope: 'https://www.googleapis.com/auth/cloud-platform',
    aud: audience,
    iat: now,
    exp: now + 300,
  })}`
  const signature = createSign('RSA-SHA256').update(unsigned).sign(key).toString('base64url')
  return `${unsigned}.${signature}`
}

async function checkGcp(c: GcpCredentials, cloud: CloudConfig): Promise<CheckResult> {
  const secrets = [c.serviceAccountKey.private_key]
  let key: KeyObject
  try {
    key = createPrivateKey(c.serviceAccountKey.private_key)
  } catch {
    return failure('serviceAccountKey.private_key is not a readable private key', secrets)
  }
  if (key.asymmetricKeyType !== 'rsa') return failure('serviceAccountKey.private_key must be an RSA key', secrets)
  try {
    const refused = await requestToken(
      cloud.gcpTokenUrl,
      { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: assertionFor(c, key, cloud.gcpTokenUrl) },
      cloud.validateTimeoutMs,
    )
    if (refused) return failure(refused, secrets)
    return { valid: true, identity: { arn: c.serviceAccountKey.client_email, accountId: c.projectId } }
  } catch (err) {
    return failure(`Could not reach the token endpoint: ${unreachableReason(err)}`, secrets, true)
  }
}

export function validateCredentials(provider: CredentialProvider, credentials: Credentials, cloud: CloudConfig): Promise<CheckResult> {
  switch (provider) {
    case 'aws':
      return checkAws(credentials as AwsCredentials, cloud)
    case 'azure':
      return checkAzure(credentials as AzureCredentials, cloud)
    case 'gcp':
      return checkGcp(credentials as GcpCredentials, cloud)
  }
}
