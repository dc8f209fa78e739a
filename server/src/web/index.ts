// The web UI: the renderer built from desktop/ (`npm run build -w desktop`), served at `/` with a
// fallback to index.html for the app's own paths, and `/env.js`, the client environment script made
// from this server's configuration (API URL, identity provider, realm, client id, USE_RUNTIME_CATALOG).
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { FastifyInstance, FastifyReply } from 'fastify'
import fastifyStatic from '@fastify/static'
import helmet from '@fastify/helmet'
import { DIAGRAM_FRAME_DIRECTIVES, policyText, securityHeaders, webUiDirectives } from '../core/security-headers.ts'
import { envScript } from './env-script.ts'

/** Paths that belong to the API or the identity provider: never answered with the app. */
const NOT_THE_APP = /^\/(api|health|realms)(\/|$)/

export default async function webUi(app: FastifyInstance) {
  const config = app.config
  const dir = path.resolve(config.web.uiDir)
  // Every answer of this scope (index, /env.js, assets, the not-built notice): helmet's headers with
  // the web UI's Content-Security-Policy (server/src/core/security-headers.ts).
  await app.register(helmet, securityHeaders(webUiDirectives(config)))
  const indexFile = path.join(dir, 'index.html')
  // The app's paths are deep links (/environments/…): a base makes its relative asset URLs resolve from /.
  const indexHtml = existsSync(indexFile) ? readFileSync(indexFile, 'utf8').replace('<head>', '<head><base href="/">') : null

  app.get(
    '/env.js',
    { schema: { hide: true } },
    async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-store').send(envScript(config)), // read from the configuration on each request (tiny)
  )

  if (!indexHtml) {
    app.log.warn({ dir }, 'web UI not built (npm run build -w desktop); / answers with a notice')
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The IES web UI is not built on this server. Run `npm run build -w desktop`, or set WEB_UI_DIR.\n'),
    )
    return
  }

  // Vite writes every bundle under assets/ with a content hash in its name: cached for good.
  await app.register(fastifyStatic, {
    root: path.join(dir, 'assets'),
    prefix: '/assets/',
    index: false,
    setHeaders: (reply) => {
      reply.header('cache-control', 'public, max-age=31536000, immutable')
    },
  })

  // The environment diagram's renderer, framed by the app: its own policy (security-headers.ts).
  const diagramFile = path.join(dir, 'diagram.html')
  const diagramHtml = existsSync(diagramFile) ? readFileSync(diagramFile, 'utf8') : null
  if (diagramHtml) {
    const diagramPolicy = policyText(DIAGRAM_FRAME_DIRECTIVES)
    app.get('/diagram.html', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', diagramPolicy)
        .header('x-frame-options', 'SAMEORIGIN')
        .send(diagramHtml),
    )
  }

  const sendIndex = (reply: FastifyReply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(indexHtml)
  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendIndex(reply))
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const pathname = request.url.split('?')[0]
    // Not an app path, or a file that does not exist (it has an extension): the API's own 404.
    if (NOT_THE_APP.test(pathname) || /\.[a-z0-9]+$/i.test(pathname)) return reply.callNotFound()
    return sendIndex(reply)
  })
}
