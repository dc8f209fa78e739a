// The browsable API reference at /api/docs: Swagger UI (@fastify/swagger-ui, its files served from
// the npm package, nothing from a CDN) over the live OpenAPI document that @fastify/swagger builds from
// the routes' TypeBox schemas. Outside the /api scope's token check: reading it (and its copy of the
// document at /api/docs/json) needs no token, only the per-IP rate limit; "Try it out"
// sends the bearer token the reader pastes under "Authorize", kept in the page's memory only
// (persistAuthorization off: never in browser storage).
import type { FastifyInstance } from 'fastify'
import swaggerUi from '@fastify/swagger-ui'

export const API_DOCS_PREFIX = '/api/docs'

/**
 * Stricter than the plugin's own policy (which allows styles and fonts from any https: origin and
 * images from the validator service): everything from this server; inline styles only, which Swagger
 * UI's React components set.
 */
const CSP =
  [
    "default-src 'self'",
    "base-uri 'self'",
    "font-src 'self' data:",
    "frame-ancestors 'none'",
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self' 'unsafe-inline'",
    "form-action 'self'",
  ].join('; ') + ';'

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return ''
  }
}

export default async function apiDocs(app: FastifyInstance) {
  // No token, but the per-IP limit of every /api request.
  app.addHook('onRequest', async (request, reply) => app.limitByIp(request, reply))
  await app.register(swaggerUi, {
    routePrefix: API_DOCS_PREFIX,
    staticCSP: CSP,
    // "Try it out" fetches from the public address (the same origin, unless behind another name).
    transformStaticCSP: (header) => `${header} connect-src 'self' ${originOf(app.config.publicUrl)};`.replace(/ ;$/, ';'),
    // No request to the public validator service.
    validatorUrl: false,
    // "Try it out" sends requests to the server's public address, read per request like /env.js.
    transformSpecification: (spec) => ({ ...spec, servers: [{ url: app.config.publicUrl }] }),
    uiConfig: {
      deepLinking: true,
      persistAuthorization: false,
      displayRequestDuration: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 1,
    },
  })
}
