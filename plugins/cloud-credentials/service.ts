// Decorates `app.cloudCredentials`: the app's one cloud credential repository, used by the routes
// beside this file and by the other plugins (environment writes check references, the Terraform
// backend job reads the secret) through the decorator.
import { repositoryPlugin } from '@ies/server/core/repository-plugin'
import { CloudCredentialRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    cloudCredentials: CloudCredentialRepository
  }
}

export default repositoryPlugin(
  'cloud-credentials',
  'cloudCredentials',
  (app) => new CloudCredentialRepository(app.mongo.db, app.keyRing),
  ['teams'],
)
