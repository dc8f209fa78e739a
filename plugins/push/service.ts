// Decorates `app.pushProblem`: why an environment cannot be pushed (the push rule,
// server/src/jobs/push/push-rule.ts), with the app's PUSH_ALLOWED_HOSTS and the stored values its
// templates refuse (push-problem.ts). The push route, the plans (plugins/plans) and the bulk upgrade
// (plugins/upgrades) ask it; and `app.pushedConfiguration`: the configuration a push generates from,
// which the organisation's rules judge.
import fp from 'fastify-plugin'
import { pushProblem, type PushProblem } from '@ies/server/jobs/push/push-rule'
import type { EnvironmentRecord } from '../environments/record.ts'
import { migrateOf, pushedConfigurationOf, refusedValuesOf } from './push-problem.ts'

declare module 'fastify' {
  interface FastifyInstance {
    pushProblem: (env: EnvironmentRecord) => Promise<PushProblem | null>
    /** The environment as a push would generate it: after its pending migrations (push-problem.ts). */
    pushedConfiguration: (env: EnvironmentRecord) => Promise<EnvironmentRecord>
  }
}

export default fp(
  async (app) => {
    const allowedHosts = app.config.push.allowedHosts
    const migrate = migrateOf(app)
    const refusedValues = refusedValuesOf(app, migrate)
    app.decorate('pushProblem', (env: EnvironmentRecord) => pushProblem(env, allowedHosts, refusedValues))
    app.decorate('pushedConfiguration', pushedConfigurationOf(app, migrate))
  },
  { name: 'push', dependencies: ['environments', 'catalog'], decorators: { fastify: ['config', 'templates'] } },
)
