// buildApp: the Fastify factory. Core plugins first (errors, database, auth, rate limits, the
// embedded identity provider), then /health at the root, then every resource in plugins/ under /api.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import autoload from '@fastify/autoload'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { MongoClient } from 'mongodb'
import { issuerOf, type Config } from './config.ts'
import { clientErrorHandler, frameworkErrors, registerErrorHandlers } from './core/errors.ts'
import { requestIdFrom } from './core/envelope.ts'
import { registerJsonBodyParser } from './core/json-body.ts'
import database from './core/db.ts'
import auth from './core/auth.ts'
import rateLimits from './core/rate-limit.ts'
import health from './core/health.ts'
import { UsersRepository } from './core/users.ts'
import { loggerOptions } from './core/logger.ts'
import { API_DIRECTIVES, helmetHeaderSet, securityHeaders } from './core/security-headers.ts'
import { keyRingOf, type KeyRing } from './core/crypto.ts'
import { buildSharedSerializer } from './core/serializers.ts'
import { templatesSource } from './templates/templates.ts'
import type { TemplatesSource } from './templates/source.ts'

/** How long requests in flight may take to finish once the server is closing. */
export const SHUTDOWN_GRACE_MS = 5_000

export const PLUGINS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../plugins')

// The service runs from its TypeScript sources through tsx, which @fastify/autoload does not detect
// when tsx is loaded with --import; tell it that .ts plugins can be imported.
if (import.meta.url.endsWith('.ts')) process.env.FASTIFY_AUTOLOAD_TYPESCRIPT ??= '1'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    users: UsersRepository
    keyRing: KeyRing
    templates: TemplatesSource
  }
}

export interface BuildAppOptions {
  config: Config
  /** Pino options, or false to silence (tests). */
  logger?: boolean | Record<string, unknown>
  /** Share an existing MongoDB client instead of connecting from `config.mongodbUri`. */
  mongoClient?: MongoClient
  /** A Redis client for shared rate-limit counters (made from REDIS_URL by main.ts). */
  redis?: unknown
  /** Extra work before the routes are sealed: the embedded identity provider is mounted through this. */
  beforeRoutes?: (app: FastifyInstance) => Promise<void>
}

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = opts
  const app = Fastify({
    logger: opts.logger === false ? false : loggerOptions(config, opts.logger),
    genReqId: (request) => requestIdFrom(request.headers['x-request-id']),
    bodyLimit: config.bodyLimitBytes,
    // A plugin's start (the autoloaded plugins' imports, the rules' WebAssembly) may take longer than
    // Fastify's 10 s on a loaded machine; a start that is slow is not a start that failed.
    pluginTimeout: 120_000,
    trustProxy: config.trustProxy,
    frameworkErrors,
    clientErrorHandler,
    ajv: { customOptions: { allErrors: true, removeAdditional: true, coerceTypes: true, useDefaults: true, allowUnionTypes: true } },
    // One response serializer per schema, not per route and status code (core/serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: buildSharedSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.decorate('config', config)
  // Shutdown: idle connections close at once (Fastify's default) and requests in flight get a few
  // seconds to finish; after that a client that stops reading (a download it never drains) or a
  // long poll cannot hold the server open.
  app.addHook('preClose', async () => {
    setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref()
  })
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-ID', request.id)
    done()
  })
  registerErrorHandlers(app)
  registerJsonBodyParser(app)

  await app.register(database, { uri: config.mongodbUri, client: opts.mongoClient })
  const users = new UsersRepository(app.mongo.db)
  app.decorate('users', users)
  app.addHook('onReady', async () => {
    await users.init().catch((err) => app.log.warn({ err: { message: err.message } }, 'could not create user indexes'))
  })

  // The services the resource plugins offer each other (fastify/demo's shape): every
  // plugins/<resource>/service.ts is a fastify-plugin that decorates the app (`app.environments`,
  // `app.cloudCredentials`, `app.catalog`, `app.jobs`: the queue of generation and push jobs), loaded
  // here at the root in the order of their declared `dependencies`. The routes (index.ts) come below.
  app.decorate('keyRing', keyRingOf(config, app.log))
  app.decorate(
    'templates',
    templatesSource(
      config.templates,
      (reason) => app.log.warn({ reason }, 'templates folder not watched: every generation checks its files and commit'),
      app.mongo.db,
    ),
  )
  // A templates folder is watched (templates.ts): its watchers end with the server.
  app.addHook('onClose', async () => app.templates.close?.())
  await app.register(autoload, {
    dir: PLUGINS_DIR,
    indexPattern: /^service\.ts$/,
    matchFilter: (file: string) => file.endsWith('/service.ts'),
    forceESM: true,
  })

  await app.register(auth, {
    issuer: issuerOf(config),
    appClientId: config.auth.appClientId,
    audience: config.auth.audience,
    allowedClients: config.auth.allowedClients,
    jwksRefetchIntervalMs: config.auth.jwksRefetchIntervalMs,
    users,
    groupsClaim: config.teams.groupsClaim,
  })
  await app.register(rateLimits, { ...config.rateLimit, redis: opts.redis })
  if (opts.beforeRoutes) await opts.beforeRoutes(app)

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'IES — Infrastructure Environment Service', version: '0.1.0' },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearerAuth: [] }],
    },
  })
  await app.register(health)
  await app.register(import('./web/index.ts'))
  await app.register(import('./web/api-docs.ts'))
  await app.register(
    async (api) => {
      // Every /api request, in this order: the security headers (on every answer, errors included:
      // helmet's set for the API, computed once; the identity provider's pages keep their own), the
      // per-IP limit, the bearer token, the per-user limit. One hook, and a promise only where a check
      // waits: each hook and each promise a request passes through has a cost of its own, and this is
      // the fixed cost of every /api request.
      const headers = await helmetHeaderSet(securityHeaders(API_DIRECTIVES))
      api.addHook('onRequest', (request, reply, done) => {
        reply.headers(headers)
        const next = () => done()
        api
          .limitByIp(request, reply)
          .then(() => {
            // A remembered token is known at once; a new one is verified first.
            const verifying = api.authenticate(request)
            if (verifying) verifying.then(() => api.limitByUser(request, reply)).then(next, done)
            else api.limitByUser(request, reply).then(next, done)
          })
          .catch(done)
      })
      await api.register(autoload, { dir: PLUGINS_DIR, ignorePattern: /(^|\/)service\.ts$/, forceESM: true })
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
    },
    { prefix: '/api' },
  )
  return app
}
