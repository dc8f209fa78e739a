// The credential input per provider (spec "Cloud credential"): which fields, which are secret
// (write-only: typed once, never shown back), which are required, and how the form becomes the
// request's `credentials` object.
import type { CredentialProvider, CredentialValidation } from '../api/types.ts'
import { checkRegion } from '../environments/rules.ts'

export interface CredentialFieldSpec {
  key: string
  label: string
  required: boolean
  secret: boolean
  /** `json`: the value is a JSON object pasted as text (GCP service-account key). */
  kind: 'text' | 'json'
  help?: string
}

export const CREDENTIAL_FIELDS: Record<CredentialProvider, CredentialFieldSpec[]> = {
  aws: [
    { key: 'accessKeyId', label: 'Access key ID', required: true, secret: false, kind: 'text' },
    { key: 'secretAccessKey', label: 'Secret access key', required: true, secret: true, kind: 'text' },
    { key: 'region', label: 'Default region', required: false, secret: false, kind: 'text', help: 'Optional, for example eu-west-1.' },
    { key: 'sessionToken', label: 'Session token', required: false, secret: true, kind: 'text', help: 'Only for temporary credentials.' },
  ],
  azure: [
    { key: 'subscriptionId', label: 'Subscription ID', required: true, secret: false, kind: 'text' },
    { key: 'tenantId', label: 'Tenant ID', required: true, secret: false, kind: 'text' },
    { key: 'clientId', label: 'Client ID', required: true, secret: false, kind: 'text' },
    { key: 'clientSecret', label: 'Client secret', required: true, secret: true, kind: 'text' },
  ],
  gcp: [
    { key: 'projectId', label: 'Project ID', required: true, secret: false, kind: 'text' },
    {
      key: 'serviceAccountKey',
      label: 'Service-account key (JSON)',
      required: true,
      secret: true,
      kind: 'json',
      help: 'Paste the JSON key file of the service account.',
    },
  ],
}

/** The request's `credentials` and the client-side errors, keyed like the server's (`credentials.<key>`). */
export function credentialsFromForm(provider: CredentialProvider, form: Record<string, string>) {
  const credentials: Record<string, unknown> = {}
  const errors: Record<string, string> = {}
  for (const f of CREDENTIAL_FIELDS[provider]) {
    const raw = (form[f.key] ?? '').trim()
    if (raw === '') {
      if (f.required) errors[`credentials.${f.key}`] = 'is required'
      continue
    }
    if (f.kind === 'json') {
      try {
        const parsed = JSON.parse(raw)
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object')
        credentials[f.key] = parsed
      } catch {
        errors[`credentials.${f.key}`] = 'must be the JSON key file (an object)'
      }
    } else {
      // A region is checked as an environment's region is (one rule).
      const regionProblem = f.key === 'region' ? checkRegion(raw) : null
      if (regionProblem) errors[`credentials.${f.key}`] = regionProblem
      else credentials[f.key] = raw
    }
  }
  return { credentials, errors }
}

/**
 * The form of an edit (rename, rotate): the name alone when no credential field is filled (the
 * stored secret stays), else the whole new secret (`PUT` replaces it), checked like a new one.
 */
export function credentialUpdateFromForm(provider: CredentialProvider, name: string, form: Record<string, string>) {
  const errors: Record<string, string> = {}
  if (!name.trim()) errors.name = 'is required'
  const typed = CREDENTIAL_FIELDS[provider].some((f) => (form[f.key] ?? '').trim() !== '')
  if (!typed) return { body: { name: name.trim() }, errors, rotates: false }
  const built = credentialsFromForm(provider, form)
  return { body: { name: name.trim(), credentials: built.credentials }, errors: { ...errors, ...built.errors }, rotates: true }
}

export interface CheckOutcome {
  state: 'valid' | 'invalid' | 'unreachable'
  /** In words, for the user. */
  text: string
  /** The provider's own message (shown as a detail). */
  detail?: string
}

/** A validation result as the user should read it: a network failure is "could not check", not "invalid". */
export function checkOutcome(result: CredentialValidation): CheckOutcome {
  if (result.valid) {
    const who = String(result.identity?.arn ?? result.identity?.accountId ?? '')
    return { state: 'valid', text: who ? `Valid: ${who}` : 'Valid' }
  }
  // The server says when the provider was not reached: the credential was not judged.
  if (result.unreachable)
    return {
      state: 'unreachable',
      text: 'Could not check: the provider could not be reached from the server. The credential may well be fine; try again later.',
      detail: result.error,
    }
  return { state: 'invalid', text: `Invalid: ${result.error}` }
}
