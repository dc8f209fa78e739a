// Bearer-token authentication for every /api route: the signature is checked against the identity
// provider's JWKS (signing-keys.ts: get-jwks, refetched for an unknown kid at most once per
// AUTH_JWKS_REFETCH_INTERVAL_MS), then issuer, expiry, algorithm, that it is an access token (not an
// ID, refresh or logout token: isAccessToken), that its client (`azp`) is one of AUTH_ALLOWED_CLIENTS
// and, when configured, the audience. Only the Authorization header is read: a token in the URL
// (`?access_token=`) is never accepted. The verified claims become `request.principal`; a token seen
// before is answered from the verified-token cache (verified-tokens.ts) until it expires, at most a minute.
import { createPublicKey, type JsonWebKey as Jwk } from 'node:crypto'
import fp from 'fastify-plugin'
import fastifyJwt, { type JwtHeader, type TokenOrHeader } from '@fastify/jwt'
import type { FastifyRequest } from 'fastify'
import { forbidden, tokenExpired, unauthorized } from './errors.ts'
import type { UsersRepository } from './users.ts'
import { VerifiedTokens } from './verified-tokens.ts'
import { SigningKeys, UnknownKeyError } from './signing-keys.ts'

export interface Principal {
  /** The IES user id (users collection). */
  userId: string
  /** The identity provider's subject. */
  sub: string
  username: string
  email: string
  roles: string[]
  clientRoles: string[]
  isAdmin: boolean
  /** The groups claim named by TEAMS_GROUPS_CLAIM (its strings); empty when it is not configured. */
  groups: string[]
  /** The client the token was issued to (`azp`): with `username` `service-account-<client>`, a service account. */
  client: string
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
  }
  interface FastifyInstance {
    /** Sets `request.principal`; returns a promise only when the token has to be verified. */
    authenticate: (request: FastifyRequest) => Promise<void> | undefined
    requireAdmin: (request: FastifyRequest) => Promise<void>
  }
}

/** A verified token's payload: the signature says who wrote it, not that every claim has its type. */
interface Claims {
  sub?: unknown
  exp?: number
  preferred_username?: unknown
  email?: unknown
  azp?: unknown
  client_id?: unknown
  typ?: unknown
  aud?: unknown
  realm_access?: { roles?: unknown }
  resource_access?: Record<string, { roles?: unknown } | undefined>
}

export interface AuthOptions {
  issuer: string
  appClientId: string
  audience?: string
  /** The clients (`azp`) whose access tokens are accepted. */
  allowedClients: readonly string[]
  /** An unknown kid refetches the JWKS at most once per this interval, and is remembered this long. */
  jwksRefetchIntervalMs: number
  users: UsersRepository
  /** The claim holding the caller's groups (TEAMS_GROUPS_CLAIM); none read when unset. */
  groupsClaim?: string
}

/** Asymmetric algorithms only: no `none`, and no HMAC that could be keyed with a public key. */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const

/** Admin is either realm role `admin` or the app client's role `environment-admin` (docs/api.md, "Authentication and roles"). */
export function isAdmin(claims: Claims, appClientId: string): boolean {
  return realmRoles(claims).includes('admin') || clientRoles(claims, appClientId).includes('environment-admin')
}

/** A roles claim is a list of names; anything else (a string such as "not-admin", objects) grants none. */
function roleList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((role): role is string => typeof role === 'string') : []
}
const realmRoles = (claims: Claims) => roleList(claims.realm_access?.roles)
const clientRoles = (claims: Claims, clientId: string) => roleList(claims.resource_access?.[clientId]?.roles)

/** The identity claims as strings, or null when one has another type (such a token is refused). */
function identityOf(claims: Claims): { sub: string; username: string; email: string } | null {
  const { sub, preferred_username: username = sub, email = '' } = claims
  if (typeof sub !== 'string' || sub === '' || typeof username !== 'string' || typeof email !== 'string') return null
  return { sub, username, email }
}

const BEARER = /^Bearer\s+(\S+)$/i

/** JOSE header `typ` values of access tokens: RFC 9068's, and none or plain JWT (Keycloak's, with `typ: Bearer` in the payload). */
const ACCESS_TOKEN_HEADER_TYPES = new Set(['at+jwt', 'application/at+jwt'])
const PLAIN_HEADER_TYPES = new Set([undefined, 'jwt', 'application/jwt'])

const headerType = (header: { typ?: unknown }) => (typeof header.typ === 'string' ? header.typ.toLowerCase() : header.typ)

/** A header an access token may have: `at+jwt`, `JWT` or none (a logout token's `logout+jwt`, say, is refused). */
export function isAccessTokenHeader(header: { typ?: unknown }): boolean {
  const typ = headerType(header)
  return ACCESS_TOKEN_HEADER_TYPES.has(typ as string) || PLAIN_HEADER_TYPES.has(typ as string | undefined)
}

/**
 * Only access tokens open the API: an RFC 9068 token (`typ: at+jwt` in the header) without another
 * payload type, or a Keycloak access token (`typ: Bearer` in the payload). Keycloak's ID (`ID`),
 * refresh (`Refresh`) and logout (`Logout`) tokens, and an OpenID provider's ID token (no `typ`),
 * are refused.
 */
export function isAccessToken(header: { typ?: unknown }, claims: { typ?: unknown }): boolean {
  if (ACCESS_TOKEN_HEADER_TYPES.has(headerType(header) as string)) return claims.typ === undefined || claims.typ === 'Bearer'
  return PLAIN_HEADER_TYPES.has(headerType(header) as string | undefined) && claims.typ === 'Bearer'
}

/** The token's client: `azp` (Keycloak, OpenID) or RFC 9068's `client_id`. */
const clientOf = (claims: Claims): unknown => claims.azp ?? claims.client_id

function headerOf(token: string): { typ?: unknown } {
  try {
    return JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8')) as { typ?: unknown }
  } catch {
    return {}
  }
}

function audienceMatches(claims: Claims, audience: string): boolean {
  const aud: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud]
  return aud.includes(audience) || claims.azp === audience
}

export default fp<AuthOptions>(
  async (app, opts) => {
    const keys = new SigningKeys({
      issuer: opts.issuer,
      jwksPath: '/protocol/openid-connect/certs',
      refetchIntervalMs: opts.jwksRefetchIntervalMs,
    })

    const pemOf = new WeakMap<Jwk, string>()

    await app.register(fastifyJwt, {
      decode: { complete: true },
      secret: async (_request: FastifyRequest, tokenOrHeader: TokenOrHeader) => {
        // decode.complete: @fastify/jwt passes the whole decoded token, header and payload.
        const token = tokenOrHeader as { header?: JwtHeader; payload?: { iss?: unknown } }
        const kid = token.header?.kid
        const alg = token.header?.alg
        const iss = token.payload?.iss
        if (typeof kid !== 'string' || typeof alg !== 'string' || iss !== opts.issuer) throw unauthorized()
        if (!(ALLOWED_ALGORITHMS as readonly string[]).includes(alg)) throw unauthorized()
        // Not an access token by its header (a logout token): refused before any key lookup.
        if (!isAccessTokenHeader(token.header ?? {})) throw unauthorized()
        // get-jwks caches the JWK but converts it to PEM on every call; convert each JWK once
        // (the same PEM string also lets @fastify/jwt reuse its verifier).
        let jwk: Jwk
        try {
          jwk = (await keys.get(kid, alg)) as Jwk
        } catch (err) {
          if (err instanceof UnknownKeyError) throw unauthorized()
          throw err
        }
        let pem = pemOf.get(jwk)
        if (!pem) {
          pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string
          pemOf.set(jwk, pem)
        }
        return pem
      },
      verify: {
        algorithms: [...ALLOWED_ALGORITHMS],
        allowedIss: opts.issuer,
        requiredClaims: ['exp', 'sub', 'iss'],
      },
    })

    app.decorateRequest('principal', null as unknown as Principal)

    // A client repeats its token on every request; verifying it each time (decode, key lookup, RSA
    // signature) dominated the cost of a cheap authenticated request.
    const verified = new VerifiedTokens<Principal>({ max: 10_000, ttlMs: 60_000 })

    app.decorate('authenticate', (request: FastifyRequest) => {
      const token = BEARER.exec(request.headers.authorization ?? '')?.[1]
      if (!token) throw unauthorized()
      const known = verified.get(token)
      if (known) {
        request.principal = known
        return undefined
      }
      return verify(request, token)
    })

    async function verify(request: FastifyRequest, token: string) {
      let claims: Claims
      try {
        claims = (await request.jwtVerify()) as Claims
      } catch (caught) {
        const err = caught as { code?: string; statusCode?: number; name?: string } | undefined
        if (err?.code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED') throw tokenExpired()
        if (err?.statusCode === 503 || err?.name === 'AbortError') {
          request.log.warn('identity provider keys unreachable')
        }
        throw unauthorized()
      }
      if (!isAccessToken(headerOf(token), claims)) throw unauthorized()
      const client = clientOf(claims)
      if (typeof client !== 'string' || !opts.allowedClients.includes(client)) throw unauthorized()
      if (opts.audience && !audienceMatches(claims, opts.audience)) throw unauthorized()
      const identity = identityOf(claims)
      if (!identity) throw unauthorized()
      const userId = await opts.users.sync(identity)
      const principal: Principal = Object.freeze({
        userId,
        ...identity,
        roles: realmRoles(claims),
        clientRoles: clientRoles(claims, opts.appClientId),
        isAdmin: isAdmin(claims, opts.appClientId),
        groups: opts.groupsClaim ? roleList((claims as Record<string, unknown>)[opts.groupsClaim]) : [],
        client,
      })
      verified.set(token, principal, claims.exp as number)
      request.principal = principal
    }

    app.decorate('requireAdmin', async (request: FastifyRequest) => {
      if (!request.principal?.isAdmin) throw forbidden()
    })
  },
  { name: 'auth' },
)
