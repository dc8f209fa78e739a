// Decorates `app.pushProblem`: why an environment cannot be pushed (push-problem.ts), with the
// app's PUSH_ALLOWED_HOSTS and the stored values its templates refuse. The push route and the bulk upgrade (plugins/upgrades) ask it.
import fp from 'fastify-plugin'
import type { EnvironmentRecord } from '../environments/record.ts'
import { pushProblem, refusedValuesOf, type PushProblem } from './push-problem.ts'

declare module 'fastify' {
  interface FastifyInstance {
    pushProblem: (env: EnvironmentRecord) => Promise<PushProblem | null>
  }
}

export default fp(
  async (app) => {
    const allowedHosts = app.config.push.allowedHosts
    const refusedValues = refusedValuesOf(app)
    app.decorate('pushProblem', (env: EnvironmentRecord) => pushProblem(env, allowedHosts, refusedValues))
  },
  { name: 'push', dependencies: ['environments', 'catalog'], decorators: { fastify: ['config', 'templates'] } },
)
