// The credential input per provider (spec "Cloud credential"): which fields, which are secret
// (write-only: typed once, never shown back), which are required, and how the form becomes the
// request's `credentials` object.
import type { CredentialProvider } from './types.ts'

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
    } else credentials[f.key] = raw
  }
  return { credentials, errors }
}
