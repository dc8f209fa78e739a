// Commands take an environment or credential by name (what people type) or by id (what scripts keep).
import type { ApiClient, CredentialSummary, Environment } from '@ies/api'
import { notFound } from './output.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export async function findEnvironment(client: ApiClient, nameOrId: string): Promise<Environment> {
  if (UUID.test(nameOrId)) return client.getEnvironment(nameOrId)
  const match = (await client.allEnvironments()).find((e) => e.name === nameOrId)
  if (!match) throw notFound('Environment', nameOrId)
  return client.getEnvironment(match.id)
}

export async function findCredential(client: ApiClient, nameOrId: string): Promise<CredentialSummary> {
  const all = await client.allCredentials()
  const match = all.find((c) => c.id === nameOrId) ?? all.filter((c) => c.name === nameOrId)[0]
  if (!match) throw notFound('Cloud credential', nameOrId)
  return match
}
