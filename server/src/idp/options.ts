// The embedded identity provider's options (its three clients) and its two development users.
import type { SigningKey } from './signing-keys.ts'

export interface IdpUser {
  /** A uuid; becomes the token's `sub`. */
  id: string
  username: string
  password: string
  email: string
  givenName: string
  familyName: string
  /** Roles in `realm_access.roles`. */
  realmRoles: string[]
  /** Roles in `resource_access.<app client id>.roles`. */
  clientRoles: string[]
  /**
   * Full paths of the groups the user is in, in the `groups` claim of their access tokens as Keycloak's
   * group membership mapper puts them (scripts/keycloak/realm.json); IES reads them with TEAMS_GROUPS_CLAIM=groups.
   */
  groups?: string[]
}

export interface IdentityProviderOptions {
  /** The address clients use for this provider, without the realm path, e.g. `http://127.0.0.1:3000`. */
  issuerBaseUrl: string
  /** Default `ies`; the issuer is `{issuerBaseUrl}/realms/{realm}`. */
  realm?: string
  /** The public browser client (PKCE S256 required). Default `ies-app`. */
  appClientId?: string
  /** Redirect URIs of the web UI, besides any loopback `http://127.0.0.1:<port>/…` and `http://localhost:<port>/…`. */
  appRedirectUris?: string[]
  /** The confidential CLI client (client credentials, introspection). Default `ies-cli`. */
  cliClientId?: string
  cliClientSecret: string
  /**
   * The public device client: the device authorization grant only (request with just `client_id`, no
   * PKCE), refresh. Default `ies-device`, as in scripts/keycloak/realm.json.
   */
  deviceClientId?: string
  users: IdpUser[]
  /** Default 300. */
  accessTokenTtlSeconds?: number
  /** Default 1800. */
  refreshTokenTtlSeconds?: number
  /** RSA signing keys, newest first; generated at start when absent (see `loadOrCreateSigningKeys`). */
  signingKeys?: SigningKey[]
  /** Signs the provider's cookies; random per start when absent (sessions then end with the process). */
  cookieKeys?: string[]
}

export type ResolvedOptions = Required<Omit<IdentityProviderOptions, 'signingKeys' | 'cookieKeys'>> & {
  issuer: string
  /** The path the provider is mounted at: `/realms/{realm}`. */
  mountPath: string
}

export function resolveOptions(opts: IdentityProviderOptions): ResolvedOptions {
  const realm = opts.realm ?? 'ies'
  const base = opts.issuerBaseUrl.replace(/\/+$/, '')
  return {
    issuerBaseUrl: base,
    realm,
    appClientId: opts.appClientId ?? 'ies-app',
    appRedirectUris: opts.appRedirectUris ?? [],
    cliClientId: opts.cliClientId ?? 'ies-cli',
    deviceClientId: opts.deviceClientId ?? 'ies-device',
    cliClientSecret: opts.cliClientSecret,
    users: opts.users,
    accessTokenTtlSeconds: opts.accessTokenTtlSeconds ?? 300,
    refreshTokenTtlSeconds: opts.refreshTokenTtlSeconds ?? 1800,
    issuer: `${base}/realms/${realm}`,
    mountPath: `/realms/${realm}`,
  }
}

export interface DevPasswords {
  dev: string
  admin: string
}

/**
 * The development users: `dev` (realm role `user`, group `/ies/platform/operator`: an operator of team
 * `platform` when TEAMS_GROUPS_CLAIM=groups) and `admin` (`user`, `admin`, client role `environment-admin`).
 */
export function defaultDevUsers(passwords: DevPasswords): IdpUser[] {
  return [
    {
      id: '5f0c8a7e-3b1d-4e2a-9c4f-1a2b3c4d5e01',
      username: 'dev',
      password: passwords.dev,
      email: 'dev@ies.local',
      givenName: 'Dev',
      familyName: 'User',
      realmRoles: ['user'],
      clientRoles: [],
      groups: ['/ies/platform/operator'],
    },
    {
      id: '5f0c8a7e-3b1d-4e2a-9c4f-1a2b3c4d5e02',
      username: 'admin',
      password: passwords.admin,
      email: 'admin@ies.local',
      givenName: 'Admin',
      familyName: 'User',
      realmRoles: ['user', 'admin'],
      clientRoles: ['environment-admin'],
    },
  ]
}
