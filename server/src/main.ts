// Starts the IES server from the environment (docs/configuration.md). With AUTH_URL unset the
// embedded identity provider is mounted at Keycloak's paths on the same address.
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import { loadConfig, type Config } from './config.ts'
import { mountEmbeddedIdentityProvider } from './idp/mount.ts'

export interface StartOptions {
  /** Where the embedded identity provider keeps its signing keys (development). */
  idpKeysFile?: string
  logger?: boolean | Record<string, unknown>
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<FastifyInstance> {
  let redis: unknown
  if (config.rateLimit.redisUrl) {
    const { Redis } = await import('ioredis')
    redis = new Redis(config.rateLimit.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
  }
  const app = await buildApp({
    config,
    logger: opts.logger,
    redis,
    beforeRoutes: config.auth.url ? undefined : (app) => mountEmbeddedIdentityProvider(app, config, opts.idpKeysFile),
  })
  if (redis) app.addHook('onClose', async () => (redis as { quit(): Promise<unknown> }).quit())
  await app.listen({ host: config.host, port: config.port })
  return app
}

function stopOnSignals(app: FastifyInstance, extra: () => Promise<void> = async () => {}) {
  let stopping = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      if (stopping) return
      stopping = true
      await app.close().catch(() => {})
      await extra().catch(() => {})
      process.exit(0)
    })
  }
}

export { stopOnSignals }

if (import.meta.url === `file://${process.argv[1]}`) {
  const app = await startServer(loadConfig())
  stopOnSignals(app)
  // Every promise has a handler; should one ever be missed (a driver callback during a database
  // outage), the server reports it as the bug it is and keeps serving instead of dying with its jobs.
  process.on('unhandledRejection', (reason) => {
    const err = reason instanceof Error ? { message: reason.message, stack: reason.stack } : { message: String(reason) }
    app.log.error({ err }, 'unhandled promise rejection')
  })
}
