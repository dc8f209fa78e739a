// The claims of access tokens, shaped like Keycloak's: user tokens (authorization code, refresh,
// device code) and service-account tokens (client credentials).
import { createHash } from 'node:crypto'
import type { IdpUser, ResolvedOptions } from './options.ts'

/** The scope of a user's access token and token response when the client asked for `openid`. */
export const USER_SCOPE = 'openid profile email'
/**
 * The realm's default client scopes, in every token whatever the request asked for; Keycloak adds
 * `openid` only when the request had it (a device request with only `client_id` has not).
 */
export const DEFAULT_CLIENT_SCOPE = 'profile email'
/** The scope of a service account's access token (Keycloak gives no `openid` to client credentials). */
export const SERVICE_ACCOUNT_SCOPE = DEFAULT_CLIENT_SCOPE

/** A user token's scope as Keycloak forms it: `openid` if it was requested, then the default client scopes. */
export function userScope(requested: string | undefined): string {
  return (requested ?? '').split(' ').includes('openid') ? USER_SCOPE : DEFAULT_CLIENT_SCOPE
}

/** A stable uuid (name-based, SHA-1) for the service account of a confidential client. */
export function serviceAccountId(realm: string, clientId: string): string {
  const hash = createHash('sha1').update(`ies:${realm}:service-account:${clientId}`).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export function serviceAccountUsername(clientId: string): string {
  return `service-account-${clientId}`
}

/** The service account's realm roles. */
export const SERVICE_ACCOUNT_REALM_ROLES = ['user']

export function userProfileClaims(user: IdpUser): Record<string, unknown> {
  return {
    email_verified: true,
    name: `${user.givenName} ${user.familyName}`,
    preferred_username: user.username,
    given_name: user.givenName,
    family_name: user.familyName,
    email: user.email,
  }
}

/**
 * The audience of every access token: the app and the CLI client. The CLI client introspects
 * tokens, and Keycloak (26.6.2+) as well as this provider answer introspection only to a client in `aud`.
 */
export function accessTokenAudience(o: ResolvedOptions): string[] {
  return [o.appClientId, o.cliClientId]
}

export function userAccessTokenClaims(
  o: ResolvedOptions,
  user: IdpUser,
  { azp, sid, scope }: { azp: string; sid: string | undefined; scope: string | undefined },
): Record<string, unknown> {
  return {
    aud: accessTokenAudience(o),
    typ: 'Bearer',
    azp,
    ...(sid ? { sid, session_state: sid } : {}),
    acr: '1',
    realm_access: { roles: [...user.realmRoles] },
    resource_access: user.clientRoles.length > 0 ? { [o.appClientId]: { roles: [...user.clientRoles] } } : undefined,
    ...(user.groups?.length && { groups: [...user.groups] }),
    scope: userScope(scope),
    ...userProfileClaims(user),
  }
}

export function serviceAccountAccessTokenClaims(o: ResolvedOptions, clientId: string): Record<string, unknown> {
  return {
    aud: accessTokenAudience(o),
    sub: serviceAccountId(o.realm, clientId),
    typ: 'Bearer',
    azp: clientId,
    acr: '1',
    realm_access: { roles: [...SERVICE_ACCOUNT_REALM_ROLES] },
    scope: SERVICE_ACCOUNT_SCOPE,
    email_verified: false,
    preferred_username: serviceAccountUsername(clientId),
  }
}
