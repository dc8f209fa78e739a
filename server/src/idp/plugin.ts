// The Fastify plugin mounting the embedded identity provider at Keycloak's paths under
// /realms/{realm}. oidc-provider (a Koa app) gets the raw request and response, with the body
// stream untouched; the routes answered here (login, introspection, userinfo, logout) read forms.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { createIdentityProvider, type EmbeddedIdentityProvider } from './identity-provider.ts'
import type { IdentityProviderOptions } from './options.ts'
import { registerLoginActions } from './login-actions.ts'
import { registerTokenEndpoints } from './token-endpoints.ts'

export type IdentityProviderPluginOptions = IdentityProviderOptions | { identityProvider: EmbeddedIdentityProvider }

const FORM_LIMIT_BYTES = 64 * 1024

function formParser(app: FastifyInstance) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  )
}

export const identityProviderPlugin: FastifyPluginAsync<IdentityProviderPluginOptions> = async (app, opts) => {
  const idp = 'identityProvider' in opts ? opts.identityProvider : createIdentityProvider(opts)
  idp.onError((err) => app.log.error({ err: { name: err.name, message: err.message } }, 'identity provider error'))
  const { mountPath } = idp.options

  await app.register(async (forms) => {
    formParser(forms)
    registerLoginActions(forms, idp)
    registerTokenEndpoints(forms, idp)
  })

  await app.register(async (library) => {
    // Leave every body to oidc-provider, which reads the stream itself.
    library.removeAllContentTypeParsers()
    library.addContentTypeParser('*', (_request, _payload, done) => done(null))
    const handler = async (request: { raw: import('node:http').IncomingMessage }, reply: import('fastify').FastifyReply) => {
      reply.hijack()
      const raw = request.raw as typeof request.raw & { originalUrl?: string }
      const url = raw.url ?? '/'
      raw.originalUrl = url
      raw.url = url.slice(mountPath.length) || '/'
      await idp.handle(raw, reply.raw)
    }
    library.all(mountPath, handler)
    library.all(`${mountPath}/*`, handler)
  })
}

// Not wrapped with fastify-plugin on purpose: the content-type parsers above must stay encapsulated.
