// Builds the oidc-provider instance: Keycloak's routes under /realms/{realm}, the three clients of
// scripts/keycloak/realm.json (app: code + PKCE S256; cli: client credentials; device: device flow),
// JWT (RS256) access tokens with Keycloak's claims, first-party consent granted automatically, and
// Keycloak's token response fields.
import Provider, { errors, type ClientMetadata, type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import {
  DEFAULT_CLIENT_SCOPE,
  SERVICE_ACCOUNT_SCOPE,
  USER_SCOPE,
  serviceAccountAccessTokenClaims,
  userAccessTokenClaims,
  userProfileClaims,
} from './claims.ts'
import type { IdpUser, ResolvedOptions } from './options.ts'
import { deviceCodeInputPage, deviceConfirmPage, messagePage } from './pages.ts'
import { decodeJwtPayload, type SigningKey } from './signing-keys.ts'
import type { MemoryStore } from './store.ts'

/** Keycloak's endpoint paths, relative to `/realms/{realm}`. */
export const OIDC_PATHS = {
  authorization: '/protocol/openid-connect/auth',
  token: '/protocol/openid-connect/token',
  deviceAuthorization: '/protocol/openid-connect/auth/device',
  deviceVerification: '/device',
  introspection: '/protocol/openid-connect/token/introspect',
  logout: '/protocol/openid-connect/logout',
  certs: '/protocol/openid-connect/certs',
  userinfo: '/protocol/openid-connect/userinfo',
  revocation: '/protocol/openid-connect/revoke',
  loginActions: '/login-actions',
} as const

/** The access token customizer of `formats.customizers.jwt`. */
type JwtCustomizer = NonNullable<NonNullable<NonNullable<Configuration['formats']>['customizers']>['jwt']>

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code'
/** Seconds between device-code polls, announced as `interval` (the realm's oauth2DevicePollingInterval). */
export const DEVICE_POLLING_INTERVAL_SECONDS = 5

export interface ProviderParts {
  options: ResolvedOptions
  /** Newest first; the first one signs. */
  keys: SigningKey[]
  store: MemoryStore
  cookieKeys: string[]
}

/** The resource indicator of the IES API: every access token is a JWT for it. */
export function apiResource(o: ResolvedOptions): string {
  return `${o.issuerBaseUrl}/api`
}

export function isLoopbackRedirect(uri: string): boolean {
  const url = URL.parse(uri)
  return !!url && url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost') && !url.hash
}

export function createProvider({ options: o, keys, store, cookieKeys }: ProviderParts): Provider {
  const resource = apiResource(o)
  const firstParty = new Set([o.appClientId, o.cliClientId, o.deviceClientId])
  const findUser = (id: string | undefined) => o.users.find((user) => user.id === id)

  const configuration: Configuration = {
    adapter: store.adapterFactory(),
    clients: clientsOf(o),
    clientDefaults: { id_token_signed_response_alg: 'RS256' },
    jwks: { keys },
    cookies: { keys: cookieKeys },
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    claims: {
      openid: ['sub'],
      profile: ['name', 'given_name', 'family_name', 'preferred_username'],
      email: ['email', 'email_verified'],
    },
    async findAccount(_ctx, id) {
      const user = findUser(id)
      if (!user) return undefined
      return { accountId: user.id, claims: async () => ({ sub: user.id, ...userProfileClaims(user) }) }
    },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    // A device request without `scope` gets the realm's default client scopes, as in Keycloak (the
    // library would otherwise grant nothing on approval); `openid` only when asked for.
    extraParams: {
      scope(ctx, value) {
        if (ctx.oidc.route === 'device_authorization' && !value && ctx.oidc.params) ctx.oidc.params.scope = DEFAULT_CLIENT_SCOPE
      },
    },
    responseTypes: ['code'],
    routes: {
      authorization: OIDC_PATHS.authorization,
      token: OIDC_PATHS.token,
      device_authorization: OIDC_PATHS.deviceAuthorization,
      code_verification: OIDC_PATHS.deviceVerification,
      jwks: OIDC_PATHS.certs,
      userinfo: OIDC_PATHS.userinfo,
      introspection: OIDC_PATHS.introspection,
      revocation: OIDC_PATHS.revocation,
      end_session: OIDC_PATHS.logout,
    },
    interactions: { url: (_ctx, interaction) => `${o.mountPath}${OIDC_PATHS.loginActions}/${interaction.uid}` },
    loadExistingGrant: firstPartyGrant(firstParty, resource),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: o.accessTokenTtlSeconds,
      ClientCredentials: o.accessTokenTtlSeconds,
      IdToken: o.accessTokenTtlSeconds,
      RefreshToken: o.refreshTokenTtlSeconds,
      AuthorizationCode: 60,
      DeviceCode: 600,
      Interaction: 1800,
      Session: 36000,
      Grant: 36000,
    },
    features: providerFeatures(o, resource),
    formats: { customizers: { jwt: accessTokenClaims(o, findUser) } },
    async renderError(ctx, out) {
      ctx.type = 'html'
      ctx.body = messagePage('Sign-in error', out.error_description ?? out.error)
    },
  }

  const provider = new Provider(o.issuer, configuration)
  allowLoopbackRedirects(provider, o.appClientId)
  provider.use(keycloakResponses(o))
  return provider
}

/** The realm's three clients (scripts/keycloak/realm.json): the app (code + PKCE), the device flow, the CLI (client credentials). */
function clientsOf(o: ResolvedOptions): ClientMetadata[] {
  return [
    {
      client_id: o.appClientId,
      token_endpoint_auth_method: 'none',
      application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // Any loopback redirect is accepted as well (allowLoopbackRedirects).
      redirect_uris: o.appRedirectUris.length > 0 ? o.appRedirectUris : ['http://127.0.0.1/callback'],
    },
    {
      // The spec's device flow: the request has only client_id, so it gets a public client of its
      // own without PKCE (Keycloak 26.7 applies a client's PKCE rule to the device request too)
      // and without redirect URIs; the app client keeps PKCE and has no device grant.
      client_id: o.deviceClientId,
      token_endpoint_auth_method: 'none',
      grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: o.cliClientId,
      client_secret: o.cliClientSecret,
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: SERVICE_ACCOUNT_SCOPE,
    },
  ]
}

/** Every client is first-party: consent is granted without asking (the grant is made on first use). */
function firstPartyGrant(firstParty: ReadonlySet<string>, resource: string): NonNullable<Configuration['loadExistingGrant']> {
  return async (ctx) => {
    const { client, session, provider } = ctx.oidc
    if (!client || !session?.accountId) return undefined
    const grantId = ctx.oidc.result?.consent?.grantId || session.grantIdFor(client.clientId)
    if (grantId) {
      const existing = await provider.Grant.find(grantId)
      if (existing) return existing
    }
    if (!firstParty.has(client.clientId)) return undefined
    const grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId })
    grant.addOIDCScope(USER_SCOPE)
    grant.addOIDCClaims(['sub'])
    grant.addResourceScope(resource, USER_SCOPE)
    await grant.save()
    return grant
  }
}

/** The library's features: client credentials, the device flow with its pages, JWT access tokens for the API resource. */
function providerFeatures(o: ResolvedOptions, resource: string): Configuration['features'] {
  return {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    // Introspection, userinfo and logout are answered by our own routes (they must accept the JWT
    // access tokens and Keycloak's logout form), so the library's versions stay off.
    introspection: { enabled: false },
    revocation: { enabled: false },
    userinfo: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    deviceFlow: {
      enabled: true,
      charset: 'base-20',
      mask: '****-****',
      async userCodeInputSource(ctx, form, _out, err) {
        ctx.body = deviceCodeInputPage(form, err ? 'The code is not valid. Try again.' : undefined)
      },
      async userCodeConfirmSource(ctx, form, client, _deviceInfo, userCode) {
        ctx.body = deviceConfirmPage(form, client.clientId, userCode)
      },
      async successSource(ctx) {
        ctx.body = messagePage('Device signed in', 'The device is signed in. You can close this page.')
      },
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => resource,
      useGrantedResource: async () => true,
      async getResourceServerInfo(_ctx, indicator) {
        if (indicator !== resource) throw new errors.InvalidTarget()
        return {
          scope: USER_SCOPE,
          audience: o.appClientId,
          accessTokenTTL: o.accessTokenTtlSeconds,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }
      },
    },
  }
}

/** Keycloak's access token claims: a service account's for client credentials, else the user's. */
function accessTokenClaims(o: ResolvedOptions, findUser: (id: string | undefined) => IdpUser | undefined): JwtCustomizer {
  return async (_ctx, token, jwt) => {
    jwt.header = { typ: 'JWT' }
    delete jwt.payload.client_id
    if (token.kind === 'ClientCredentials') {
      Object.assign(jwt.payload, serviceAccountAccessTokenClaims(o, String(token.clientId)))
      return
    }
    const user = findUser(token.accountId)
    if (!user) throw new Error('access token for an unknown account')
    Object.assign(jwt.payload, userAccessTokenClaims(o, user, { azp: String(token.clientId), sid: token.sessionUid, scope: token.scope }))
  }
}

/** RFC 8252: the app client may redirect to any loopback port and path, over http. */
function allowLoopbackRedirects(provider: Provider, appClientId: string): void {
  const prototype = provider.Client.prototype as { redirectUriAllowed(uri: string): boolean; clientId: string }
  const registered = prototype.redirectUriAllowed
  prototype.redirectUriAllowed = function redirectUriAllowed(this: typeof prototype, uri: string) {
    return registered.call(this, uri) || (this.clientId === appClientId && isLoopbackRedirect(uri))
  }
}

/** Koa middleware reshaping the library's answers into Keycloak's. */
function keycloakResponses(o: ResolvedOptions) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next()
    const route = ctx.oidc?.route
    const body = ctx.body as Record<string, unknown> | undefined
    if (!body || typeof body !== 'object') return
    const client = ctx.oidc?.client
    if (route === 'device_authorization' && ctx.status === 400 && client && !client.grantTypeAllowed(DEVICE_CODE_GRANT)) {
      // Keycloak's answer to a device request from a client without the grant (the app client).
      ctx.body = {
        error: 'unauthorized_client',
        error_description: 'Client is not allowed to initiate OAuth 2.0 Device Authorization Grant. The flow is disabled for the client.',
      }
      return
    }
    if (ctx.status !== 200) return
    if (route === 'token' && typeof body.access_token === 'string') {
      const claims = decodeJwtPayload(body.access_token) ?? {}
      const hasRefresh = typeof body.refresh_token === 'string'
      ctx.body = {
        access_token: body.access_token,
        expires_in: body.expires_in,
        refresh_expires_in: hasRefresh ? o.refreshTokenTtlSeconds : 0,
        ...(hasRefresh ? { refresh_token: body.refresh_token } : {}),
        token_type: 'Bearer',
        ...(body.id_token ? { id_token: body.id_token } : {}),
        'not-before-policy': 0,
        ...(claims.session_state ? { session_state: claims.session_state } : {}),
        scope: claims.scope,
      }
    } else if (route === 'device_authorization' && typeof body.device_code === 'string') {
      ctx.body = { ...body, interval: DEVICE_POLLING_INTERVAL_SECONDS }
    } else if (route === 'discovery') {
      // The same host as the library's own endpoints (the request's host, like Keycloak's discovery).
      const base = String(body.token_endpoint).slice(0, -OIDC_PATHS.token.length)
      Object.assign(body, {
        introspection_endpoint: `${base}${OIDC_PATHS.introspection}`,
        userinfo_endpoint: `${base}${OIDC_PATHS.userinfo}`,
        end_session_endpoint: `${base}${OIDC_PATHS.logout}`,
        code_challenge_methods_supported: ['S256'],
      })
    }
  }
}
