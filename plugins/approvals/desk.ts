// The approvals of pushes of production environments (docs/teams.md): a team that requires them has
// each push (not a dry run) and each upgrade's push of an environment labelled `tier: production` held
// as `awaiting-approval`; another member with role operator or more approves it (it is queued then) or
// rejects it (it ends as APPROVAL_REJECTED, nothing is pushed); unanswered for APPROVAL_EXPIRY_MS it
// ends as APPROVAL_EXPIRED. A held push is a job record only: no Agenda job, no worker.
//
// One decision per job (decision-claims.ts): approving, rejecting and expiring each first claim it,
// so two members deciding at once, or a decision racing the expiry, end with exactly one of them. The
// claim holds the decision, so a decision whose decider died before carrying it out (the push marked
// approved but never queued) is carried out by the sweep (`sweep`) once a lock lifetime has passed.
// The waiting pushes are read from their own small collection (store.ts `AwaitingApproval`), never
// by scanning the job queue for a status.
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, conflict, notFound } from '@ies/server/core/errors'
import { SPEC_CODES } from '@ies/api/errors'
import type { LifecyclePushParams } from '@ies/server/jobs/push/push-job'
import type { AwaitingApproval, JobApproval, JobClaim, JobRecord } from '@ies/server/jobs/queue/store'
import type { Approval } from '@ies/api/schemas/approvals'
import { roleAllows } from '@ies/api/schemas/teams'
import { DecisionClaims, decisionId, expiry, rejection } from './decision-claims.ts'

/** Who asked or decided: the IES user id and the identity provider's user name. */
export interface Person {
  userId: string
  username: string
}

type Decision = 'approved' | 'rejected'

export class ApprovalDesk {
  private readonly claims: DecisionClaims

  constructor(private readonly app: FastifyInstance) {
    this.claims = new DecisionClaims(() => app.jobs.store.claims)
  }

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
    for (const entry of await this.app.jobs.store.awaitingApproval()) {
      const job = await this.app.jobs.store.byId(entry._id)
      if (job?.status !== 'awaiting-approval' || !job.approval) continue
      const seen = await this.app.environments.access(principal, job.environmentId, 'read').catch((err: unknown) => {
        if (err instanceof AppError && (err.statusCode === 404 || err.statusCode === 403)) return null
        throw err
      })
      if (!seen) continue
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
    const decidedBy = { userId: principal.userId, username: principal.username }
    const claim = await this.claims.claim(record, { decision, decidedBy, ...(reason && { reason }) })
    if (!claim) throw conflict('The push was approved, rejected or expired meanwhile')
    return this.carryOut(record, claim, request.log)
  }

  /**
   * The approvals sweep, run at start and on a timer by each replica that runs jobs: ends the requests
   * that have expired, and carries out each decision whose decider died before it was done (an
   * approved push marked but never queued, a rejection never ended), exactly once across replicas.
   * How many requests it ended or carried out.
   */
  async sweep(log: FastifyBaseLogger): Promise<number> {
    let done = 0
    for (const entry of await this.app.jobs.store.awaitingApproval()) {
      // One push that cannot be repaired now (the database failed) does not hold the others up.
      try {
        if (await this.repair(entry, log)) done++
      } catch (err) {
        log.warn({ err: { message: (err as Error).message }, jobId: entry._id }, 'approval not repaired; tried again by the next sweep')
      }
    }
    return done
  }

  /** The sweep's work on one waiting push; whether it ended it or carried its decision out. */
  private async repair(entry: AwaitingApproval, log: FastifyBaseLogger): Promise<boolean> {
    const { store } = this.app.jobs
    const grace = this.app.config.jobs.lockLifetimeMs
    const job = await store.byId(entry._id)
    if (!job || (job.status !== 'awaiting-approval' && job.status !== 'queued') || !job.approval) {
      // Carried out (the job ran or ended), or the record was never stored: its creator died between the two
      // inserts, or is between them now (so a young entry stays).
      if (job || Date.now() - entry.createdAt.getTime() > grace) await store.settled(entry._id)
      return false
    }
    // A push marked queued was approved (its decision claim may have gone with the retention sweep).
    const decided =
      (await this.claims.decided(job._id)) ??
      (job.status === 'queued'
        ? { _id: decisionId(job._id), jobId: job._id, at: job.approval.decidedAt ?? entry.createdAt, decision: 'approved' as const }
        : null)
    if (!decided) return job.approval.expiresAt.getTime() <= Date.now() && this.expire(job, log)
    if (!(await this.claims.takeOver(job._id, decided, grace))) return false
    await this.carryOut(
      job,
      { ...decided, ...(!decided.decidedBy && job.approval.decidedBy && { decidedBy: job.approval.decidedBy }) },
      log,
    )
    return true
  }

  /** Ends an expired request (unless it was decided meanwhile); whether this call ended it. */
  private async expire(record: JobRecord, log: FastifyBaseLogger): Promise<boolean> {
    const claim = await this.claims.claim(record, { decision: 'expired' })
    if (!claim) return false
    await this.carryOut(record, claim, log)
    return true
  }

  /**
   * Carries a decision out: an approved push is marked queued and queued, a rejected or expired one
   * ends; the history records it and the push no longer waits. Each step may be done again by a sweep
   * that takes over (marking and ending are idempotent; a push queued twice still runs once: the job
   * store's attempt claims).
   */
  private async carryOut(record: JobRecord, claim: JobClaim, log: FastifyBaseLogger): Promise<JobRecord> {
    const { app } = this
    const decision = claim.decision ?? 'expired'
    const approval: JobApproval = {
      ...record.approval!,
      decision,
      ...(claim.decidedBy && { decidedBy: claim.decidedBy }),
      decidedAt: claim.at,
    }
    let result: JobRecord
    if (decision === 'approved') {
      const queued = record.status === 'queued' ? record : await app.jobs.store.approved(record._id, approval)
      if (!queued) {
        await app.jobs.store.settled(record._id)
        throw notFound('Job not found')
      }
      await app.jobs.release(queued)
      result = queued
    } else {
      const error = decision === 'rejected' ? rejection(claim) : expiry(app.config.approvals.expiryMs)
      await app.jobs.end({ ...record, approval }, error)
      result = (await app.jobs.store.byId(record._id)) ?? { ...record, approval, status: 'failed', error }
    }
    const kind = decision === 'approved' ? 'approval-approved' : decision === 'rejected' ? 'approval-rejected' : 'approval-expired'
    await this.record(claim.decidedBy ?? record.approval!.requestedBy, record, kind, log)
    await app.jobs.store.settled(record._id)
    return result
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
