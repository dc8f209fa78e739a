// Decorates `app.jobs` (the runner, its job store and archive store) and runs
// the job queue with the server: started when the server is ready, drained when it closes. Generation
// runs processor-lib in process, or the remote processor service when PROCESSOR_URL and
// PROCESSOR_SERVICE_TOKEN are set (processor-client.ts). An environment's jobs and archives go with
// it when it is deleted.
import fp from 'fastify-plugin'
import { templateProcessorFor } from '@ies/server/jobs/generation/processor-client'
import { JobRunner } from '@ies/server/jobs/queue/runner'
import { templatesMigrations } from '@ies/server/templates/migrations'
import { templatesDataHolders } from '@ies/server/jobs/plan/data-holders'
import type { Migration } from '@ies/processor-lib/migrations/index'
import type { PlanOutcomeRecord } from '@ies/server/jobs/queue/environment-access'
import type { PlanInput } from '@ies/server/jobs/plan/plan-input'

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobRunner
  }
}

export default fp(
  async (app) => {
    const { environments } = app
    const processor = templateProcessorFor(app.config, app.templates)
    const migrations = templatesMigrations(app.templates)
    // A job reads its environment whoever queued it: the route that queued it checked the caller's access.
    const forJobs = {
      get: (_userId: string, id: string) => environments.forJob(id),
      getDeployKey: async (_userId: string, id: string) => {
        const env = await environments.forJob(id)
        return env && environments.getDeployKey(env.userId, id)
      },
      getCloudCredential: async (_userId: string, id: string) => {
        const env = await environments.forJob(id)
        if (!env?.cloudCredentialId) return null
        const stored = await app.cloudCredentials.getCredentials(env.userId, env.cloudCredentialId)
        return stored && { provider: stored.provider, credentials: stored.credentials as unknown as Record<string, unknown> }
      },
      planned: async (userId: string, id: string, jobId: string, kind: 'plan' | 'drift', outcome: PlanOutcomeRecord) => {
        const env = await environments.forJob(id)
        if (!env) return
        const user = await app.users.get(userId).catch(() => null)
        const change = { kind, environment: { id, name: env.name }, ...outcome }
        await app.history.recordJobChange({ userId, username: user?.username ?? userId }, jobId, change, app.log)
      },
      // The rules on a push's plan, with the environment as stored (jobs/plan/plan-policies.ts).
      judgePlan: async (_userId: string, id: string, plan: PlanInput) => {
        const env = await environments.forJob(id)
        if (!env) return { deny: [], warn: [] }
        const teamId = app.teams.teamOf(env.userId)
        const team = teamId ? ((await app.teams.byId(teamId))?.name ?? null) : null
        return app.policies.evaluate(env as unknown as Record<string, unknown>, { team, plan, log: app.log })
      },
      storeMigrated: async (userId: string, id: string, all: readonly Migration[], jobId?: string) => {
        const env = await environments.forJob(id)
        if (env) await environments.storeMigrated(env.userId, id, all, { userId, jobId })
      },
    }
    const dataHolders = templatesDataHolders(app.templates)
    const runner = new JobRunner({
      db: app.mongo.db,
      config: app.config,
      log: app.log,
      processor,
      environments: forJobs,
      migrations,
      dataHolders,
    })
    app.decorate('jobs', runner)

    environments.onEnvironmentDeleted(async (env) => {
      const archiveIds = await runner.store.removeForEnvironment(env._id)
      await runner.drift.removeForEnvironment(env._id)
      await runner.archives.remove(archiveIds)
    })

    let retry: NodeJS.Timeout | undefined
    const start = async (): Promise<void> => {
      try {
        await runner.start()
      } catch (err) {
        app.log.warn({ err: { message: (err as Error).message } }, 'job queue not started; retrying in 5 s')
        retry = setTimeout(() => void start(), 5000)
      }
    }
    app.addHook('onReady', start)
    app.addHook('onClose', async () => {
      clearTimeout(retry)
      await runner.stop()
    })
  },
  { name: 'jobs', dependencies: ['db', 'environments', 'cloud-credentials', 'history'], decorators: { fastify: ['templates'] } },
)
