// Decorates `app.environments`: the app's one environment repository. The routes beside this file
// and the other plugins (jobs, generation, cloud credentials, the assistant) use it through the
// decorator, never by importing this plugin's files.
import { repositoryPlugin } from '@ies/server/core/repository-plugin'
import { EnvironmentRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    environments: EnvironmentRepository
  }
}

export default repositoryPlugin('environments', 'environments', (app) => new EnvironmentRepository(app.mongo.db, app.keyRing, app.teams), [
  'teams',
])
