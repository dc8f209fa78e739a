// Decorates `app.teams`: the app's one teams repository. The environments and cloud credentials
// plugins resolve a caller's team roles through it (`rolesOf`), never by importing this plugin's files.
import { repositoryPlugin } from '@ies/server/core/repository-plugin'
import { TeamsRepository } from './repository.ts'

declare module 'fastify' {
  interface FastifyInstance {
    teams: TeamsRepository
  }
}

export default repositoryPlugin('teams', 'teams', (app) => new TeamsRepository(app.mongo.db, app.config.teams.groupsPrefix))
