// Commands take an environment or credential by name (what people type) or by id (what scripts keep).
import type { ApiClient, CredentialSummary, Environment } from '@ies/api'
import { notFound } from './output.ts'
import { UsageError } from './settings.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * An environment by id, by name, or by `<team>/<name>`. A name alone is looked for among all the
 * caller's environments (their own and their teams'); when it names several, the caller is asked
 * to say which (UsageError listing `<team>/<name>` of each, `-/<name>` for their own).
 */
export async function findEnvironment(client: ApiClient, nameOrId: string): Promise<Environment> {
  if (UUID.test(nameOrId)) return client.getEnvironment(nameOrId)
  const [team, name] = nameOrId.includes('/') ? nameOrId.split('/', 2) : [undefined, nameOrId]
  const matches = (await client.allEnvironments()).filter(
    (e) => e.name === name && (team === undefined || (team === '-' ? e.team === undefined : e.team === team)),
  )
  if (matches.length === 0) throw notFound('Environment', nameOrId)
  if (matches.length > 1) {
    const which = matches.map((e) => `${e.team ?? '-'}/${e.name}`).join(', ')
    throw new UsageError(`${nameOrId} names ${matches.length} environments (${which}): give one of these, or the id`)
  }
  return client.getEnvironment(matches[0].id)
}

export async function findCredential(client: ApiClient, nameOrId: string): Promise<CredentialSummary> {
  const all = await client.allCredentials()
  const match = all.find((c) => c.id === nameOrId) ?? all.filter((c) => c.name === nameOrId)[0]
  if (!match) throw notFound('Cloud credential', nameOrId)
  return match
}
