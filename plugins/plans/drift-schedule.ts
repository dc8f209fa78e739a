// Drift checks on a schedule: an environment with `driftCheckHours` gets a `drift` job (the same job
// as POST /:id/drift) once that many hours have passed since its last check (or since the last one
// the schedule queued, whatever its outcome: a failing check is not retried every scan).
//
// Each replica that runs jobs scans every DRIFT_SCHEDULE_SCAN_MS. A check is claimed before it is
// queued by inserting `<environment>:<time it became due>` into `driftScheduleClaims` (a unique `_id`,
// atomic on every store), so two replicas never queue the same check; an environment's claim is
// removed, by its `_id`, once the next one is made or the environment is deleted. At most
// DRIFT_SCHEDULE_CONCURRENCY scheduled checks are queued or running at once (counted from the jobs
// the schedule queued, `driftSchedule`, one document per environment; replicas scanning at the same
// moment may each add one): the rest wait for a later scan, oldest due first. Drift jobs run in the plan slots (PLAN_CONCURRENCY), never in those of
// generations and pushes. An environment the plan routes would refuse (plan-refusal.ts: not pushable, no state
// backend or cloud credential) is passed over until it has them.
import type { Collection, Db } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '@ies/server/config'
import type { JobRecord } from '@ies/server/jobs/queue/store'
import type { LastDrift } from '@ies/api/schemas/plans'
import type { EnvironmentRecord } from '../environments/record.ts'

const HOUR_MS = 3600_000

interface ScheduleDoc {
  _id: string
  queuedAt: Date
  jobId: string
  /** The claim the check was queued under (`<environment>:<due time>`). */
  claimId?: string
}

export interface DriftScheduleDeps {
  db: Db
  config: Config['plan']['driftSchedule']
  log: FastifyBaseLogger
  scheduled(): Promise<{ id: string; userId: string; everyHours: number }[]>
  environment(id: string): Promise<EnvironmentRecord | null>
  /** Whether the environment can be checked now (plan-refusal.ts: the routes' rule). */
  checkable(env: EnvironmentRecord): Promise<boolean>
  lastDrift(id: string): Promise<LastDrift | null>
  job(id: string): Promise<JobRecord | null>
  /** Queues a drift job of the environment for its owner; its id. */
  enqueue(env: EnvironmentRecord): Promise<string>
}

export class DriftSchedule {
  private readonly state: Collection<ScheduleDoc>
  private readonly claims: Collection<{ _id: string }>
  /** Scans finished by this replica (tests wait for them). */
  private readonly scans: Collection<{ _id: string; count: number }>

  constructor(private readonly deps: DriftScheduleDeps) {
    this.state = deps.db.collection('driftSchedule')
    this.claims = deps.db.collection('driftScheduleClaims')
    this.scans = deps.db.collection('driftScheduleScans')
  }

  /** Queues the checks that are due, within the limit. */
  async scan(now = Date.now()): Promise<void> {
    const due: { id: string; dueAt: number }[] = []
    let outstanding = 0
    for (const e of await this.deps.scheduled()) {
      const queued = await this.state.findOne({ _id: e.id })
      if (queued && (await this.running(queued.jobId))) {
        outstanding++
        continue
      }
      const checked = Date.parse((await this.deps.lastDrift(e.id))?.checkedAt ?? '') || 0
      const last = Math.max(checked, queued?.queuedAt.getTime() ?? 0)
      const dueAt = last + e.everyHours * HOUR_MS
      if (dueAt <= now) due.push({ id: e.id, dueAt })
    }
    due.sort((a, b) => a.dueAt - b.dueAt)
    for (const { id, dueAt } of due) {
      if (outstanding >= this.deps.config.concurrency) break
      const env = await this.deps.environment(id)
      if (!env || !(await this.deps.checkable(env))) continue
      const claimId = `${id}:${dueAt}`
      if (!(await this.claim(claimId))) continue
      const jobId = await this.deps.enqueue(env)
      const before = await this.state.findOneAndReplace({ _id: id }, { queuedAt: new Date(now), jobId, claimId }, { upsert: true })
      if (before?.claimId) await this.claims.deleteOne({ _id: before.claimId })
      outstanding++
    }
    await this.scans.updateOne({ _id: 'scans' }, { $inc: { count: 1 } }, { upsert: true })
  }

  /** Forgets a deleted environment's schedule. */
  async remove(environmentId: string): Promise<void> {
    const state = await this.state.findOneAndDelete({ _id: environmentId })
    if (state?.claimId) await this.claims.deleteOne({ _id: state.claimId })
  }

  /** Scans every DRIFT_SCHEDULE_SCAN_MS until the returned stop is called. */
  start(): () => void {
    let scanning = false
    const tick = async () => {
      if (scanning) return
      scanning = true
      try {
        await this.scan()
      } catch (err) {
        this.deps.log.warn({ err: { message: (err as Error).message } }, 'drift schedule: scan failed; tried again at the next')
      } finally {
        scanning = false
      }
    }
    const timer = setInterval(() => void tick(), this.deps.config.scanEveryMs)
    timer.unref()
    return () => clearInterval(timer)
  }

  private async running(jobId: string): Promise<boolean> {
    const job = await this.deps.job(jobId)
    return job?.status === 'queued' || job?.status === 'running'
  }

  private async claim(id: string): Promise<boolean> {
    try {
      await this.claims.insertOne({ _id: id })
      return true
    } catch (err) {
      if ((err as { code?: unknown }).code === 11000) return false
      throw err
    }
  }
}
