// Decorates `app.history`: the change history of environments (README.md beside this file). The
// environment, generation, push, upgrade and credential routes record through it; the routes beside
// this file read it. Histories of deleted environments are pruned when their retention ends, in the
// background on every replica, as often as job retention sweeps (removing twice is harmless).
import fp from 'fastify-plugin'
import { ChangeHistory } from './recorder.ts'
import { HistoryStore } from './store.ts'

declare module 'fastify' {
  interface FastifyInstance {
    history: ChangeHistory
  }
}

export default fp(
  async (app) => {
    const store = new HistoryStore(app.mongo.db, (err) =>
      app.log.warn(
        { err: { message: err.message } },
        'history entries stored; their count hint or page copy not written (reads fall back)',
      ),
    )
    const history = new ChangeHistory(store, app.config.history.retentionDays)
    app.decorate('history', history)
    // A push that ran the templates' migrations changed the stored configuration: recorded as the
    // job's requester's change, with the job's id.
    app.environments.onEnvironmentMigrated(async (before, after, by) => {
      const user = await app.users.get(by.userId).catch(() => null)
      const change = {
        kind: 'migrate' as const,
        environment: { id: after.id, name: after.name },
        before,
        after,
      }
      await history.recordJobChange({ userId: by.userId, username: user?.username ?? by.userId }, by.jobId ?? '', change, app.log)
    })
    let sweeper: NodeJS.Timeout | undefined
    app.addHook('onReady', async () => {
      await history.store.indexes().catch((err) => app.log.warn({ err: { message: err.message } }, 'could not create history indexes'))
      sweeper = setInterval(() => {
        history.store.prune().catch((err: Error) => app.log.warn({ err: { message: err.message } }, 'history retention sweep failed'))
      }, app.config.jobs.retention.sweepEveryMs)
      sweeper.unref()
    })
    app.addHook('onClose', async () => clearInterval(sweeper))
  },
  { name: 'history', dependencies: ['db', 'environments'] },
)
