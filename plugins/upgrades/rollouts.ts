// Upgrades in waves (docs/updating.md, "Upgrades in waves"): a rollout record (collection
// `upgradeRollouts`) holds the waves, their environments and the jobs started for them. It is moved on
// by `advance`, which any replica may run (the status read, GET /environments/upgrade/:id, and a
// timer on each replica that runs jobs): each step is claimed first by inserting
// `<rollout>:<revision>` into `upgradeRolloutClaims` (a unique `_id`, atomic on every store), so two
// replicas never start the same wave twice; the record is the whole state, so a restarted server
// carries on where it was.
//
// A wave: a dry run of each of its environments (the preview; with `plan`, planned too), then, when
// no preview has a conflict, none failed and none would replace or destroy data unconfirmed, the pushes. A preview with a conflict, or a push that fails, stops the rollout:
// later waves are not started. A push that succeeded moves the environment's pin (`templatesPin`)
// to the version pushed when the environment is pinned or the rollout names a version.
import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import type { JobRecord } from '@ies/server/jobs/queue/store'
import type { DryRunResult } from '@ies/api/schemas/push'
import type { LifecyclePushParams } from '@ies/server/jobs/push/push-job'
import type { RolloutView } from '@ies/api/schemas/upgrades'
import { planSummaryLine } from '@ies/api/schemas/plans'
import { JobFailure } from '@ies/server/core/job-failure'
import { guard } from '@ies/server/jobs/plan/push-plan'

export type WaveStatus = RolloutView['waves'][number]['status']

export interface RolloutEnvironment {
  id: string
  name: string
  /** What the push generates (the last push's format and options). */
  push: Pick<LifecyclePushParams, 'format' | 'options'>
  /** The pin to set once pushed; absent: the environment keeps following the newest templates. */
  pinTo?: string
  previewJobId?: string
  jobId?: string
  outcome?: 'previewed' | 'pushed' | 'conflict' | 'failed'
  reason?: string
  /** The data-holding addresses its push may replace or destroy (the request's confirmDestroy for it). */
  confirmDestroy?: string[]
  /** A planned preview: its plan's summary line (or why there is none), and what it puts at risk. */
  plan?: string
  dataAtRisk?: string[]
}

export interface RolloutDoc {
  _id: string
  userId: string
  revision: number
  status: RolloutView['status']
  dryRun: boolean
  strategy: NonNullable<LifecyclePushParams['strategy']>
  /** The templates commit every push uses (resolved once, when the rollout starts). */
  templatesCommit: string
  /** False for the request without waves: its pushes start at once, without a preview. */
  preview: boolean
  /** The previews (dry runs) are planned too (jobs/plan/push-plan.ts); a real rollout's wave stops at data put at risk unconfirmed. */
  plan?: boolean
  waves: { pattern: string; status: WaveStatus; environments: RolloutEnvironment[] }[]
  skipped: { environmentId: string; name?: string; reason: string }[]
  stopped?: { wave: number; reason: string }
  createdAt: Date
  updatedAt: Date
}

/** What advancing needs from the app: jobs and the environments' pins. */
export interface RolloutDeps {
  enqueuePush(userId: string, environmentId: string, params: LifecyclePushParams): Promise<string>
  job(userId: string, jobId: string): Promise<JobRecord | null>
  setPin(userId: string, environmentId: string, pin: string): Promise<void>
}

const finished = (job: JobRecord | null) => !job || job.status === 'succeeded' || job.status === 'failed'

/** The `_id` of the document listing the running rollouts' ids (`upgradeRolloutsRunning`). */
const RUNNING = 'running'

export class Rollouts {
  readonly collection: Collection<RolloutDoc>
  private readonly claims: Collection<{ _id: string; at: Date }>
  /**
   * The ids of the running rollouts, one document read by `_id`: the timer asks for them every
   * second, and on the embedded store any other filter reads the whole (ever growing) table.
   */
  private readonly runningIds: Collection<{ _id: string; ids: string[] }>

  constructor(
    db: Db,
    /**
     * The job lock's lifetime (JOBS_LOCK_LIFETIME_MS): a claimed step is renewed every third of it
     * while it is taken, and a claim not renewed for that long (its replica died) is taken over.
     */
    private readonly lockLifetimeMs: number,
  ) {
    this.collection = db.collection<RolloutDoc>('upgradeRollouts')
    this.claims = db.collection('upgradeRolloutClaims')
    this.runningIds = db.collection('upgradeRolloutsRunning')
  }

  async create(doc: Omit<RolloutDoc, '_id' | 'revision' | 'status' | 'createdAt' | 'updatedAt'>): Promise<RolloutDoc> {
    const now = new Date()
    const rollout: RolloutDoc = { ...doc, _id: randomUUID(), revision: 0, status: 'running', createdAt: now, updatedAt: now }
    await this.collection.insertOne(rollout)
    await this.runningIds.updateOne({ _id: RUNNING }, { $addToSet: { ids: rollout._id } }, { upsert: true })
    return rollout
  }

  async get(userId: string, id: string): Promise<RolloutDoc | null> {
    const doc = await this.collection.findOne({ _id: id })
    return doc?.userId === userId ? doc : null
  }

  /** The running rollouts, each read by `_id`; the ids of those that have ended leave the list. */
  async running(): Promise<RolloutDoc[]> {
    const ids = (await this.runningIds.findOne({ _id: RUNNING }))?.ids ?? []
    const docs = await Promise.all(ids.map((id) => this.collection.findOne({ _id: id })))
    const ended = ids.filter((_id, i) => docs[i]?.status !== 'running')
    if (ended.length > 0) await this.runningIds.updateOne({ _id: RUNNING }, { $pullAll: { ids: ended } })
    return docs.filter((doc): doc is RolloutDoc => doc?.status === 'running')
  }

  /** Moves the rollout on as far as its jobs allow; the record as it is after. */
  async advance(doc: RolloutDoc, deps: RolloutDeps): Promise<RolloutDoc> {
    for (let steps = 0; doc.status === 'running' && steps < 2 * doc.waves.length + 2; steps++) {
      const next = structuredClone(doc)
      if (!(await step(next, deps, false))) return doc
      if (!(await this.claim(doc))) return (await this.collection.findOne({ _id: doc._id })) ?? doc
      // Claimed: this replica alone takes the step (starting jobs, moving pins) and writes it.
      const taken = structuredClone(doc)
      await this.renewingClaim(claimId(doc), () => step(taken, deps, true))
      taken.revision = doc.revision + 1
      taken.updatedAt = new Date()
      await this.collection.replaceOne({ _id: doc._id }, taken)
      doc = taken
    }
    return doc
  }

  /**
   * Removes the rollouts that ended before `cutoff` (job retention's age limit: runner.ts calls this
   * with every sweep), with their claims; how many. A sweep reads the table once (in the
   * background, as the job history's sweep does), then deletes by `_id`.
   */
  async prune(cutoff: Date): Promise<number> {
    const all = await this.collection.find({}, { projection: { _id: 1, revision: 1, status: 1, updatedAt: 1 } }).toArray()
    const ended = all.filter((doc) => doc.status !== 'running' && doc.updatedAt < cutoff)
    for (const doc of ended) {
      // The record first: a claim without its record claims nothing.
      await this.collection.deleteOne({ _id: doc._id })
      const claims = Array.from({ length: doc.revision + 1 }, (_, i) => `${doc._id}:${i + 1}`)
      await this.claims.deleteMany({ _id: { $in: claims } })
    }
    return ended.length
  }

  /** Claims the rollout's next step: true when this replica won it, or took over a claim not renewed for a lock lifetime. */
  private async claim(doc: RolloutDoc): Promise<boolean> {
    const _id = claimId(doc)
    for (let tookOver = false; ; tookOver = true) {
      try {
        await this.claims.insertOne({ _id, at: new Date() })
        // A claim taken over: the step is this replica's unless its dead claimant wrote it after all.
        return !tookOver || (await this.collection.findOne({ _id: doc._id }))?.revision === doc.revision
      } catch (err) {
        if ((err as { code?: unknown }).code !== 11000) throw err
      }
      const held = await this.claims.findOne({ _id })
      if (held && Date.now() - held.at.getTime() <= this.lockLifetimeMs) return false
      // Its replica died (or the claim went meanwhile): the claim at that time is given up and claimed anew.
      if (held) await this.claims.deleteOne({ _id, at: held.at })
    }
  }

  /** The step, with its claim renewed every third of a lock lifetime while it is taken (starting many jobs takes a while). */
  private async renewingClaim<T>(_id: string, work: () => Promise<T>): Promise<T> {
    const renew = () => this.claims.updateOne({ _id }, { $set: { at: new Date() } }).catch(() => {})
    const timer = setInterval(() => void renew(), Math.max(50, this.lockLifetimeMs / 3))
    try {
      return await work()
    } finally {
      clearInterval(timer)
    }
  }
}

/** The claim of the rollout's next step. */
const claimId = (doc: Pick<RolloutDoc, '_id' | 'revision'>) => `${doc._id}:${doc.revision + 1}`

/**
 * One step of the rollout's current wave, applied to `doc`: true when there was one to take. With
 * `act` false only the decision is made (nothing started); with `act` true jobs are started and pins moved.
 */
async function step(doc: RolloutDoc, deps: RolloutDeps, act: boolean): Promise<boolean> {
  const at = doc.waves.findIndex((w) => !['done', 'previewed'].includes(w.status))
  if (at < 0) {
    doc.status = 'succeeded'
    return true
  }
  const wave = doc.waves[at]
  const push = (e: RolloutEnvironment, dryRun: boolean) =>
    deps.enqueuePush(doc.userId, e.id, {
      ...e.push,
      dryRun,
      strategy: doc.strategy,
      templatesVersion: doc.templatesCommit,
      ...(dryRun && doc.plan && { plan: true }),
      ...(!dryRun && e.confirmDestroy && { confirmDestroy: e.confirmDestroy }),
    })
  if (wave.status === 'pending') {
    const previewing = doc.preview || doc.dryRun
    if (act) {
      for (const e of wave.environments) {
        if (previewing) e.previewJobId = await push(e, true)
        else e.jobId = await push(e, false)
      }
    }
    wave.status = previewing ? 'previewing' : 'pushing'
    return true
  }
  const jobs = await Promise.all(
    wave.environments.map((e) => {
      const id = wave.status === 'previewing' ? e.previewJobId : e.jobId
      return id ? deps.job(doc.userId, id) : Promise.resolve(null)
    }),
  )
  if (!jobs.every(finished)) return false
  wave.environments.forEach((e, i) => judge(e, jobs[i], wave.status === 'previewing' && { guard: !doc.dryRun }))
  // Each environment pushed keeps the version it now has on its branch, also when the wave stops.
  if (act && wave.status === 'pushing') {
    for (const e of wave.environments) if (e.outcome === 'pushed' && e.pinTo) await deps.setPin(doc.userId, e.id, e.pinTo)
  }
  const stopping = wave.environments.find((e) => e.outcome === 'conflict' || e.outcome === 'failed')
  if (stopping) {
    wave.status = 'stopped'
    doc.status = 'stopped'
    doc.stopped = { wave: at, reason: `${stopping.name}: ${stopping.reason}` }
    return true
  }
  if (wave.status === 'previewing') {
    if (doc.dryRun) {
      wave.status = 'previewed'
      return true
    }
    if (act) for (const e of wave.environments) e.jobId = await push(e, false)
    wave.status = 'pushing'
    return true
  }
  wave.status = 'done'
  return true
}

/**
 * The outcome of an environment's preview or push job. A preview that was planned carries its plan's
 * summary; with `guard` (a rollout that pushes next), one whose plan replaces or destroys data not
 * confirmed is refused as its push would be (PUSH_WOULD_DESTROY_DATA), before the wave pushes anything.
 */
export function judge(e: RolloutEnvironment, job: JobRecord | null, preview: false | { guard: boolean }): void {
  if (!job) {
    e.outcome = 'failed'
    e.reason = 'the job is gone (the environment was deleted)'
  } else if (job.status === 'failed') {
    e.outcome = job.error?.code === 'PUSH_CONFLICT' ? 'conflict' : 'failed'
    e.reason = `${job.error?.code}: ${job.error?.message}`
  } else if (preview) {
    const result = job.result as DryRunResult | undefined
    const conflicts = result?.conflicts ?? []
    e.outcome = conflicts.length > 0 ? 'conflict' : 'previewed'
    if (conflicts.length > 0) e.reason = `conflicts in ${conflicts.map((c) => c.file).join(', ')}`
    const plan = result?.plan
    if (!plan) return
    if ('unavailable' in plan) {
      e.plan = `no plan: ${plan.unavailable}`
      return
    }
    e.plan = planSummaryLine(plan.summary)
    e.dataAtRisk = plan.dataAtRisk
    if (!preview.guard || e.outcome !== 'previewed') return
    try {
      guard(plan.dataAtRisk, e.confirmDestroy)
    } catch (err) {
      if (!(err instanceof JobFailure)) throw err
      e.outcome = 'failed'
      e.reason = `${err.code}: ${err.message}`
    }
  } else {
    e.outcome = 'pushed'
  }
}
