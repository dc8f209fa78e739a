// Decorates `app.cloudCredentials`: the app's one cloud credential repository, used by the routes
// beside this file and by the other plugins (environment writes check references, the Terraform
// backend job reads the secret) through the decorator.
import fp from 'fastify-plugin'
import { CloudCredentialRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    cloudCredentials: CloudCredentialRepository
  }
}

export default fp(
  async (app) => {
    const repo = new CloudCredentialRepository(app.mongo.db, app.keyRing)
    app.decorate('cloudCredentials', repo)
    app.addHook('onReady', async () => {
      await repo.indexes().catch((err) => app.log.warn({ err: { message: err.message } }, 'could not create cloud credential indexes'))
    })
  },
  { name: 'cloud-credentials', dependencies: ['db'], decorators: { fastify: ['keyRing'] } },
)
