// Decorates `app.environments`: the app's one environment repository. The routes beside this file
// and the other plugins (jobs, generation, cloud credentials, the assistant) use it through the
// decorator, never by importing this plugin's files.
import fp from 'fastify-plugin'
import { EnvironmentRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    environments: EnvironmentRepository
  }
}

export default fp(
  async (app) => {
    const repo = new EnvironmentRepository(app.mongo.db, app.keyRing)
    app.decorate('environments', repo)
    app.addHook('onReady', async () => {
      await repo.indexes().catch((err) => app.log.warn({ err: { message: err.message } }, 'could not create environment indexes'))
    })
  },
  { name: 'environments', dependencies: ['db'], decorators: { fastify: ['keyRing'] } },
)
