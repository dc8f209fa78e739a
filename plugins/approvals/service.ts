// Decorates `app.approvals` (desk.ts): the push route and the upgrades' rollouts queue pushes through
// it, and the routes beside this file list and decide. Where jobs run, the approvals sweep (expired
// requests ended, decisions whose decider died carried out) runs at start and then in the background,
// a tenth of APPROVAL_EXPIRY_MS apart (at least 250 ms, at most a minute).
import fp from 'fastify-plugin'
import { ApprovalDesk } from './desk.ts'

declare module 'fastify' {
  interface FastifyInstance {
    approvals: ApprovalDesk
  }
}

export default fp(
  async (app) => {
    const desk = new ApprovalDesk(app)
    app.decorate('approvals', desk)
    if (!app.config.jobs.process) return
    let sweeper: NodeJS.Timeout | undefined
    let sweeping = false
    const sweep = async () => {
      if (sweeping) return
      sweeping = true
      try {
        await desk.sweep(app.log)
      } catch (err) {
        app.log.warn({ err: { message: (err as Error).message } }, 'approvals sweep failed; tried again shortly')
      } finally {
        sweeping = false
      }
    }
    app.addHook('onReady', async () => {
      void sweep()
      sweeper = setInterval(() => void sweep(), Math.min(60_000, Math.max(250, app.config.approvals.expiryMs / 10)))
      sweeper.unref()
    })
    app.addHook('onClose', async () => clearInterval(sweeper))
  },
  { name: 'approvals', dependencies: ['db', 'environments', 'jobs', 'history', 'teams'] },
)
