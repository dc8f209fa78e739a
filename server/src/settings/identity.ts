// Who signs in: the identity provider and the clients whose tokens open the API (AUTH_*), the
// development users' passwords, and teams taken from the identity provider's groups (TEAMS_*).
import { int, list, optional, str, type Env } from './read.ts'

export interface AuthSettings {
  /** Base URL of the identity provider; `undefined` means the embedded provider at `publicUrl`. */
  url: string | undefined
  realm: string
  appClientId: string
  cliClientId: string
  cliClientSecret: string
  /** When set, a token's `aud` or `azp` must contain this value. */
  audience: string | undefined
  /** AUTH_ALLOWED_CLIENTS: the clients (`azp`) whose access tokens open the API. */
  allowedClients: string[]
  /** AUTH_JWKS_REFETCH_INTERVAL_MS: the key set is fetched again for an unknown `kid` at most this often; unknown kids are remembered this long. */
  jwksRefetchIntervalMs: number
  devUserPassword: string
  devAdminPassword: string
}

/** Teams from the identity provider (docs/teams.md, docs/operations.md "Teams from the identity provider"). */
export interface TeamsSettings {
  /** TEAMS_GROUPS_CLAIM: the access-token claim listing the caller's groups; unset: teams come from IES alone. */
  groupsClaim: string | undefined
  /** TEAMS_GROUPS_PREFIX: a group `<prefix><team>/<role>` makes its members `<role>` in `<team>`. */
  groupsPrefix: string
}

export function readAuth(env: Env): AuthSettings {
  return {
    url: optional(env, 'AUTH_URL')?.replace(/\/+$/, ''),
    realm: str(env, 'AUTH_REALM', 'ies'),
    appClientId: str(env, 'AUTH_APP_CLIENT_ID', 'ies-app'),
    cliClientId: str(env, 'AUTH_CLI_CLIENT_ID', 'ies-cli'),
    cliClientSecret: str(env, 'AUTH_CLI_CLIENT_SECRET', 'ies-cli-dev-secret'),
    audience: optional(env, 'AUTH_AUDIENCE'),
    allowedClients: list(env, 'AUTH_ALLOWED_CLIENTS') ?? [
      str(env, 'AUTH_APP_CLIENT_ID', 'ies-app'),
      str(env, 'AUTH_CLI_CLIENT_ID', 'ies-cli'),
      'ies-device',
    ],
    jwksRefetchIntervalMs: int(env, 'AUTH_JWKS_REFETCH_INTERVAL_MS', 30_000),
    devUserPassword: str(env, 'DEV_USER_PASSWORD', 'dev-password'),
    devAdminPassword: str(env, 'DEV_ADMIN_PASSWORD', 'admin-password'),
  }
}

export function readTeams(env: Env): TeamsSettings {
  return {
    groupsClaim: optional(env, 'TEAMS_GROUPS_CLAIM'),
    groupsPrefix: str(env, 'TEAMS_GROUPS_PREFIX', '/ies/'),
  }
}
