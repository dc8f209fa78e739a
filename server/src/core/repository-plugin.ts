// The shape of a service plugin that offers a repository to the other plugins: it makes the
// repository once per app, decorates the app with it, and creates its indexes when the app is ready
// (a database that is down then leaves a warning; the repository works without them and the next
// start creates them). plugins/environments/service.ts and plugins/cloud-credentials/service.ts use it.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

export function repositoryPlugin<K extends keyof FastifyInstance>(
  name: string,
  decorator: K,
  make: (app: FastifyInstance) => FastifyInstance[K] & { indexes(): Promise<void> },
  /** Other service plugins whose decorators `make` uses. */
  uses: string[] = [],
) {
  return fp(
    async (app) => {
      const repo = make(app)
      app.decorate(decorator, repo as never) // typed by the caller's K; Fastify's decorate cannot follow a generic key
      app.addHook('onReady', async () => {
        await repo.indexes().catch((err) => app.log.warn({ err: { message: err.message } }, `could not create ${name} indexes`))
      })
    },
    { name, dependencies: ['db', ...uses], decorators: { fastify: ['keyRing'] } },
  )
}
