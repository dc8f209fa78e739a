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
    const history = new ChangeHistory(new HistoryStore(app.mongo.db), app.config.history.retentionDays)
    app.decorate('history', history)
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
  { name: 'history', dependencies: ['db'] },
)
