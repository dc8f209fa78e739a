// The non-secret values of a credential, kept in the clear and shown on a single-record read.
import type {
  AwsCredentials,
  AzureCredentials,
  CredentialProvider,
  Credentials,
  GcpCredentials,
  Metadata,
} from '@ies/api/schemas/cloud-credentials'

/** First 4 and last 4 characters; anything shorter than 12 characters is masked whole. */
export function mask(value: string): string {
  if (value.length < 12) return '*'.repeat(value.length)
  return `${value.slice(0, 4)}${'*'.repeat(value.length - 8)}${value.slice(-4)}`
}

export function metadataOf(provider: CredentialProvider, credentials: Credentials): Metadata {
  switch (provider) {
    case 'aws': {
      const c = credentials as AwsCredentials
      return { accessKeyId: mask(c.accessKeyId), ...(c.region && { region: c.region }) }
    }
    case 'azure': {
      const c = credentials as AzureCredentials
      return { tenantId: c.tenantId, subscriptionId: c.subscriptionId }
    }
    case 'gcp': {
      const c = credentials as GcpCredentials
      return { projectId: c.projectId, client_email: c.serviceAccountKey.client_email }
    }
  }
}
