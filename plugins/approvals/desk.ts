// The approvals of pushes of production environments (docs/teams.md): a team that requires them has
// each push (not a dry run) and each upgrade's push of an environment labelled `tier: production` held
// as `awaiting-approval`; another member with role operator or more approves it (it is queued then) or
// rejects it (it ends as APPROVAL_REJECTED, nothing is pushed); unanswered for APPROVAL_EXPIRY_MS it
// ends as APPROVAL_EXPIRED. A held push is a job record only: no Agenda job, no worker.
//
// One decision per job: approving, rejecting and expiring each first insert `<job>:decision` into the
// job claims (a unique `_id`, atomic on every MongoDB-compatible store, FerretDB included), so two
// members deciding at once, or a decision racing the expiry, end with exactly one of them.
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, conflict, notFound } from '@ies/server/core/errors'
import { SPEC_CODES } from '@ies/api/errors'
import type { LifecyclePushParams } from '@ies/server/jobs/push/push-job'
import type { JobApproval, JobRecord } from '@ies/server/jobs/queue/store'
import { APPROVAL_CODES, type Approval } from '@ies/api/schemas/approvals'
import { roleAllows } from '@ies/api/schemas/teams'

/** Who asked or decided: the IES user id and the identity provider's user name. */
export interface Person {
  userId: string
  username: string
}

type Decision = 'approved' | 'rejected'

const isDuplicateKey = (err: unknown) => (err as { code?: unknown }).code === 11000

export class ApprovalDesk {
  constructor(private readonly app: FastifyInstance) {}

  /**
   * Queues a push, or holds it for approval when its environment is a team's, labelled
   * `tier: production`, and the team requires approvals (a dry run writes nothing: never held).
   */
  async enqueuePush(by: Person, environmentId: string, params: LifecyclePushParams, log: FastifyBaseLogger): Promise<JobRecord> {
    const { app } = this
    const teamId = params.dryRun ? null : await this.approvingTeam(environmentId)
    if (!teamId) return app.jobs.enqueue('push', by.userId, environmentId, params)
    const requestedBy = { userId: by.userId, username: by.username }
    const approval: JobApproval = { requestedBy, teamId, expiresAt: new Date(Date.now() + app.config.approvals.expiryMs) }
    const job = await app.jobs.hold(by.userId, environmentId, params, approval)
    await this.record(requestedBy, job, 'approval-requested', log)
    return job
  }

  /** The team whose approval a push of this environment needs, or null. */
  private async approvingTeam(environmentId: string): Promise<string | null> {
    const env = await this.app.environments.forJob(environmentId)
    const teamId = env && this.app.teams.teamOf(env.userId)
    if (!teamId || env.labels?.tier !== 'production') return null
    const team = await this.app.teams.byId(teamId)
    return team?.requireProductionApproval ? teamId : null
  }

  /** The pushes awaiting approval in environments the caller may read, oldest first. */
  async list(request: FastifyRequest): Promise<Approval[]> {
    const { principal } = request
    const out: Approval[] = []
    for (const job of await this.app.jobs.store.awaitingApproval()) {
      const seen = await this.app.environments.access(principal, job.environmentId, 'read').catch((err: unknown) => {
        if (err instanceof AppError && (err.statusCode === 404 || err.statusCode === 403)) return null
        throw err
      })
      if (!seen || !job.approval) continue
      out.push({
        jobId: job._id,
        environment: { id: seen.env._id, name: seen.env.name },
        team: { id: job.approval.teamId, name: seen.team?.name ?? job.approval.teamId },
        requestedBy: job.approval.requestedBy,
        requestedAt: job.createdAt.toISOString(),
        expiresAt: job.approval.expiresAt.toISOString(),
        canDecide: roleAllows(seen.role, 'operate') && job.approval.requestedBy.userId !== principal.userId,
      })
    }
    return out
  }

  /**
   * Approves (queues) or rejects (ends) a push awaiting approval: 404 for a job the caller cannot
   * see, 403 for a viewer and for the requester (a pipeline's client included), 409 once decided or expired.
   */
  async decide(request: FastifyRequest, jobId: string, decision: Decision, reason?: string): Promise<JobRecord> {
    const { app } = this
    const { principal } = request
    const record = await app.jobs.store.byId(jobId)
    if (!record) throw notFound('Job not found')
    // A job of an environment the caller cannot see answers as one that does not exist.
    await app.environments.access(principal, record.environmentId, 'operate').catch((err: unknown) => {
      throw err instanceof AppError && err.statusCode === 404 ? notFound('Job not found') : err
    })
    if (record.status !== 'awaiting-approval' || !record.approval) {
      throw conflict(`The job is ${record.status}: only a push awaiting approval is approved or rejected`)
    }
    if (record.approval.requestedBy.userId === principal.userId) {
      throw new AppError(403, SPEC_CODES.forbidden, 'Another member of the team must approve or reject a push you requested')
    }
    if (record.approval.expiresAt.getTime() <= Date.now()) {
      await this.expire(record, request.log)
      throw conflict('The approval request has expired')
    }
    if (!(await this.claim(record))) throw conflict('The push was approved, rejected or expired meanwhile')
    const decidedBy = { userId: principal.userId, username: principal.username }
    const approval: JobApproval = { ...record.approval, decision, decidedBy, decidedAt: new Date() }
    const kind = decision === 'approved' ? 'approval-approved' : 'approval-rejected'
    let result: JobRecord
    if (decision === 'approved') {
      const queued = await app.jobs.store.approved(record._id, approval)
      if (!queued) throw notFound('Job not found')
      await app.jobs.release(queued)
      result = queued
    } else {
      const why = reason ? `: ${reason}` : ''
      const error = { code: APPROVAL_CODES.rejected, message: `${principal.username} rejected the push${why}` }
      await app.jobs.end({ ...record, approval }, error)
      result = (await app.jobs.store.byId(record._id)) ?? { ...record, approval, status: 'failed', error }
    }
    await this.record(decidedBy, record, kind, request.log)
    return result
  }

  /** Ends every push whose approval request has expired (run by each replica that runs jobs). */
  async expireDue(log: FastifyBaseLogger): Promise<number> {
    let ended = 0
    for (const job of await this.app.jobs.store.awaitingApproval()) {
      if (job.approval && job.approval.expiresAt.getTime() <= Date.now() && (await this.expire(job, log))) ended++
    }
    return ended
  }

  /** Ends an expired request (unless it was decided meanwhile); whether this call ended it. */
  private async expire(record: JobRecord, log: FastifyBaseLogger): Promise<boolean> {
    if (!record.approval || !(await this.claim(record))) return false
    const approval: JobApproval = { ...record.approval, decision: 'expired', decidedAt: new Date() }
    const minutes = Math.round(this.app.config.approvals.expiryMs / 60_000)
    const message = `No team member approved the push within ${minutes >= 1 ? `${minutes} min` : `${this.app.config.approvals.expiryMs} ms`} (APPROVAL_EXPIRY_MS)`
    await this.app.jobs.end({ ...record, approval }, { code: APPROVAL_CODES.expired, message })
    await this.record(record.approval.requestedBy, record, 'approval-expired', log)
    return true
  }

  /** The one decision on a job (see the top); false when it was taken already. */
  private async claim(record: JobRecord): Promise<boolean> {
    try {
      await this.app.jobs.store.claims.insertOne({ _id: `${record._id}:decision`, jobId: record._id, at: new Date() })
      return true
    } catch (err) {
      if (isDuplicateKey(err)) return false
      throw err
    }
  }

  private async record(
    actor: Person,
    job: JobRecord,
    kind: 'approval-requested' | 'approval-approved' | 'approval-rejected' | 'approval-expired',
    log: FastifyBaseLogger,
  ) {
    const env = await this.app.environments.forJob(job.environmentId)
    const environment = { id: job.environmentId, name: env?.name ?? job.environmentId }
    await this.app.history.recordJobChange(actor, job._id, { kind, environment, jobId: job._id }, log)
  }
}
