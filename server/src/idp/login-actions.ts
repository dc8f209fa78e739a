// The interactive part of sign-in at /realms/{realm}/login-actions/:uid: the login form (GET), the
// credential check (POST). Consent is granted without asking: every client is first-party.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type Provider from 'oidc-provider'
import type { InteractionResults } from 'oidc-provider'
import { secretsEqual } from './client-auth.ts'
import type { EmbeddedIdentityProvider } from './identity-provider.ts'
import { OIDC_PATHS } from './provider.ts'
import { loginPage, messagePage } from './pages.ts'

type Details = Awaited<ReturnType<Provider['interactionDetails']>>

export function registerLoginActions(app: FastifyInstance, idp: EmbeddedIdentityProvider): void {
  const { mountPath, realm, users } = idp.options
  const actionOf = (uid: string) => `${mountPath}${OIDC_PATHS.loginActions}/${encodeURIComponent(uid)}`

  async function details(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Details | undefined> {
    try {
      const found = await idp.provider.interactionDetails(request.raw, reply.raw)
      if (found.uid === uid) return found
    } catch {
      // no interaction cookie, or the interaction expired
    }
    await reply
      .code(400)
      .type('text/html')
      .send(messagePage('Sign-in expired', 'This sign-in page has expired. Go back to the application and sign in again.'))
    return undefined
  }

  async function finish(request: FastifyRequest, reply: FastifyReply, result: InteractionResults) {
    const to = await idp.provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false })
    return reply.code(303).redirect(to)
  }

  async function consent(request: FastifyRequest, reply: FastifyReply, found: Details) {
    const { Grant } = idp.provider
    const accountId = found.session?.accountId
    const clientId = String(found.params.client_id)
    const grant = (found.grantId ? await Grant.find(found.grantId) : undefined) ?? new Grant({ accountId, clientId })
    const missing = found.prompt.details as {
      missingOIDCScope?: string[]
      missingOIDCClaims?: string[]
      missingResourceScopes?: Record<string, string[]>
    }
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '))
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims)
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '))
    }
    return finish(request, reply, { consent: { grantId: await grant.save() } })
  }

  const page = (reply: FastifyReply, uid: string, clientId: string, status = 200, username?: string, error?: string) =>
    reply
      .code(status)
      .type('text/html')
      .send(loginPage({ action: actionOf(uid), realm, clientId, username, error }))

  app.get<{ Params: { uid: string } }>(`${mountPath}${OIDC_PATHS.loginActions}/:uid`, async (request, reply) => {
    const found = await details(request, reply, request.params.uid)
    if (!found) return reply
    if (found.prompt.name === 'consent') return consent(request, reply, found)
    return page(reply, found.uid, String(found.params.client_id))
  })

  app.post<{ Params: { uid: string }; Body: Record<string, string> | undefined }>(
    `${mountPath}${OIDC_PATHS.loginActions}/:uid`,
    async (request, reply) => {
      const found = await details(request, reply, request.params.uid)
      if (!found) return reply
      if (found.prompt.name === 'consent') return consent(request, reply, found)
      const username = request.body?.username ?? ''
      const password = request.body?.password
      const user = users.find((candidate) => candidate.username === username || candidate.email === username)
      // Compare even when the user is unknown, so timing does not tell which usernames exist.
      const ok = secretsEqual(password, user?.password ?? '\u0000never') && user !== undefined
      if (!ok) return page(reply, found.uid, String(found.params.client_id), 200, username, 'Invalid username or password.')
      return finish(request, reply, { login: { accountId: user.id } })
    },
  )
}
