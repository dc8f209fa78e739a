// Keycloak's endpoints that work on issued tokens and are answered here rather than by the library:
// introspection (JWT access tokens and refresh tokens), userinfo, and logout by refresh token.
import type { FastifyInstance, FastifyReply } from 'fastify'
import { clientCredentialsOf, secretsEqual } from './client-auth.ts'
import type { EmbeddedIdentityProvider } from './identity-provider.ts'
import { OIDC_PATHS } from './provider.ts'
import { userProfileClaims } from './claims.ts'

type Form = Record<string, string> | undefined

function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description })
}

export function registerTokenEndpoints(app: FastifyInstance, idp: EmbeddedIdentityProvider): void {
  const o = idp.options
  const path = (p: string) => `${o.mountPath}${p}`

  /** The client named in the request, if it authenticated as Keycloak requires (confidential: secret). */
  function authenticatedClient(authorization: string | undefined, form: Record<string, string>) {
    const given = clientCredentialsOf(authorization, form)
    if (!given) return undefined
    if (given.clientId === o.cliClientId) {
      return secretsEqual(given.clientSecret, o.cliClientSecret) ? given.clientId : undefined
    }
    // The public clients need no secret.
    if (given.clientId === o.appClientId || given.clientId === o.deviceClientId) return given.clientId
    return undefined
  }

  async function findRefreshToken(value: string) {
    const token = await idp.provider.RefreshToken.find(value)
    if (!token || token.isExpired || token.consumed) return undefined
    return token
  }

  app.post<{ Body: Form }>(path(OIDC_PATHS.introspection), async (request, reply) => {
    const form = request.body ?? {}
    const clientId = authenticatedClient(request.headers.authorization, form)
    // Keycloak introspects only for confidential clients.
    if (!clientId || clientId !== o.cliClientId) {
      return oauthError(reply, 401, 'invalid_client', 'Authentication failed.')
    }
    if (!form.token) return oauthError(reply, 400, 'invalid_request', 'Token not provided.')
    reply.header('cache-control', 'no-store')
    const claims = idp.verifyAccessToken(form.token)
    const audience = claims ? [claims.aud].flat() : []
    // As Keycloak: an access token is active only for a client in its audience (or the one it was issued to).
    if (claims && (audience.includes(clientId) || claims.azp === clientId)) {
      return {
        ...claims,
        client_id: claims.azp,
        username: claims.preferred_username,
        token_type: 'Bearer',
        active: true,
      }
    }
    const refresh = await findRefreshToken(form.token)
    const user = refresh && o.users.find((candidate) => candidate.id === refresh.accountId)
    if (refresh && user && refresh.clientId === clientId) {
      return {
        exp: refresh.exp,
        iat: refresh.iat,
        jti: refresh.jti,
        iss: o.issuer,
        sub: user.id,
        typ: 'Refresh',
        azp: refresh.clientId,
        sid: refresh.sessionUid,
        session_state: refresh.sessionUid,
        scope: refresh.scope,
        ...userProfileClaims(user),
        client_id: refresh.clientId,
        username: user.username,
        active: true,
      }
    }
    return { active: false }
  })

  const userinfo = async (request: { headers: { authorization?: string } }, reply: FastifyReply) => {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
    const claims = match ? idp.verifyAccessToken(match[1]!) : undefined
    const user = claims && o.users.find((candidate) => candidate.id === claims.sub)
    if (!user) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="' + o.realm + '", error="invalid_token"')
        .send({ error: 'invalid_token', error_description: 'Token verification failed' })
    }
    return { sub: user.id, ...userProfileClaims(user) }
  }
  app.get(path(OIDC_PATHS.userinfo), userinfo)
  app.post(path(OIDC_PATHS.userinfo), userinfo)

  app.post<{ Body: Form }>(path(OIDC_PATHS.logout), async (request, reply) => {
    const form = request.body ?? {}
    const clientId = authenticatedClient(request.headers.authorization, form)
    if (!clientId) return oauthError(reply, 401, 'unauthorized_client', 'Invalid client credentials')
    if (!form.refresh_token) return oauthError(reply, 400, 'invalid_request', 'No refresh token')
    const refresh = await findRefreshToken(form.refresh_token)
    if (!refresh || refresh.clientId !== clientId) return oauthError(reply, 400, 'invalid_grant', 'Invalid refresh token')
    await refresh.destroy()
    await idp.endSession({ grantId: refresh.grantId, sessionUid: refresh.sessionUid })
    return reply.code(204).send()
  })
}
