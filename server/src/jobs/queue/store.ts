// The job records the API serves, always scoped by the owning user. Agenda's own collection only
// dispatches; this record carries status, timestamps, result and error. A queued or running job's
// record is in `jobs`, the only collection written in place (start, heartbeats), which so stays as
// small as the queue; when the job finishes, its final record is inserted into `jobHistory`
// (insert-only; retention.ts prunes it) and then removed from `jobs`. A read looks in `jobs`, then in
// `jobHistory`: in that order a job that finishes meanwhile is found in one or the other.
//
// Records finished in this process lately are also kept in memory (`recent`) and read from there
// first (a final record never changes): a job's waiters are answered as soon as its final record is
// stored, before it leaves the queue (runner.ts), without a read. Deletions drop them from there too.
//
// Every query on the hot path filters by `_id` alone and checks owner and status in code: FerretDB 1.x
// (SQLite) serves by index only a filter that is exactly `{ _id: <string or ObjectId> }`
// (scripts/build-ferretdb.sh); any other filter (`{ _id, userId }`, `{ _id, status }`) reads and
// decodes the whole collection. The same queries use the `_id` index on MongoDB.
import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Collection, Db } from 'mongodb'
import type { Format, GenerateOptions } from '../generation/selection.ts'
import type { ProcessorInput } from '../generation/transform.ts'
import type { JobStatus, JobType } from '@ies/api/values'

export { JOB_STATUSES, JOB_TYPES, type JobStatus, type JobType } from '@ies/api/values'

export interface JobError {
  code: string
  message: string
  details?: unknown
}

export interface GenerateParams {
  format: Format
  options: GenerateOptions
}

export interface PushParams extends GenerateParams {
  /** A successful generation of the same environment whose files are pushed. */
  generationJobId?: string
}

export interface GenerateResult {
  format: Format
  options: GenerateOptions
  templatesCommit: string
  fileCount: number
  warnings: number
  archive: { filename: string; size: number; sha256: string }
}

export interface PushResult {
  commit: string
  branch: string
  url: string
  changed: boolean
  templatesCommit: string
  fileCount: number
  generationJobId?: string
}

/** Who asked for a push that waits for approval, until when, and who decided (plugins/approvals). */
export interface JobApproval {
  requestedBy: { userId: string; username: string }
  teamId: string
  expiresAt: Date
  decidedBy?: { userId: string; username: string }
  decision?: 'approved' | 'rejected' | 'expired'
  decidedAt?: Date
}

/**
 * A push waiting for approval, in `jobsAwaitingApproval` by the job's `_id` (plugins/approvals): inserted
 * before the held job record and deleted once its decision (approval, rejection, expiry) has been
 * carried out or its environment is deleted. So the waiting pushes are read without scanning `jobs`
 * by status (a whole-queue read on FerretDB): this collection holds only them.
 */
export interface AwaitingApproval {
  _id: string
  environmentId: string
  expiresAt: Date
  createdAt: Date
}

/**
 * A claim in `jobClaims`: a job's attempt (`<job>:<attempt>`), its approval decision (`<job>:decision`,
 * with the decision, who and why) or the taking over of a decision whose decider died (`<job>:settle:<n>`).
 */
export interface JobClaim {
  _id: string
  jobId: string
  at: Date
  decision?: 'approved' | 'rejected' | 'expired'
  decidedBy?: { userId: string; username: string }
  reason?: string
}

export interface JobRecord {
  _id: string
  type: JobType
  userId: string
  environmentId: string
  status: JobStatus
  params: GenerateParams | PushParams
  /** The processor input the job used (the transform's output; never a secret). */
  processorInput?: ProcessorInput
  result?: GenerateResult | PushResult
  error?: JobError
  /** GridFS file of the archive (generate jobs). */
  archiveId?: unknown
  attempts: number
  createdAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  /** Set when an attempt starts and whenever its worker touches its lock (see `start`). */
  heartbeatAt?: Date
  /** A push that needed (or still needs) a team member's approval. */
  approval?: JobApproval
}

export class JobStore {
  readonly collection: Collection<JobRecord>

  /** Finished jobs' final records (insert-only, pruned by retention.ts). */
  readonly history: Collection<JobRecord>

  /** One document per started attempt of a job (see `start`), and approval decisions (plugins/approvals). */
  readonly claims: Collection<JobClaim>

  /** The pushes waiting for approval (see `AwaitingApproval`). */
  readonly awaiting: Collection<AwaitingApproval>

  /** Final records of jobs finished here lately (see the top). */
  private readonly recent = new LRUCache<string, JobRecord>({ max: 2000 })

  /** Records queued here and not yet started here: `start` needs no read for them (see there). */
  private readonly queuedHere = new LRUCache<string, JobRecord>({ max: 2000 })

  constructor(db: Db) {
    this.collection = db.collection<JobRecord>('jobs')
    this.history = db.collection<JobRecord>('jobHistory')
    this.claims = db.collection('jobClaims')
    this.awaiting = db.collection('jobsAwaitingApproval')
  }

  async init(): Promise<void> {
    await Promise.all([
      this.collection.createIndex({ userId: 1, environmentId: 1 }, { name: 'user_environment' }),
      this.history.createIndex({ userId: 1, environmentId: 1 }, { name: 'user_environment' }),
      // A team's environment's jobs, whoever queued them (listForEnvironment, removeForEnvironment).
      this.collection.createIndex({ environmentId: 1 }, { name: 'environment' }),
      this.history.createIndex({ environmentId: 1 }, { name: 'environment' }),
      this.history.createIndex({ finishedAt: 1 }, { name: 'finished' }),
      this.claims.createIndex({ jobId: 1 }, { name: 'job' }),
      this.claims.createIndex({ at: 1 }, { name: 'at' }),
    ])
  }

  /** A new job record, queued, or awaiting approval when `approval` is given (not started until `release`). */
  async create(
    type: JobType,
    userId: string,
    environmentId: string,
    params: JobRecord['params'],
    approval?: JobApproval,
  ): Promise<JobRecord> {
    const doc: JobRecord = {
      _id: randomUUID(),
      type,
      userId,
      environmentId,
      status: approval ? 'awaiting-approval' : 'queued',
      params,
      attempts: 0,
      createdAt: new Date(),
      startedAt: null,
      finishedAt: null,
      ...(approval && { approval }),
    }
    // The waiting entry first: a record without its entry would never be listed, decided or expired
    // (an entry without its record is dropped by the approvals sweep).
    if (approval) await this.awaiting.insertOne({ _id: doc._id, environmentId, expiresAt: approval.expiresAt, createdAt: doc.createdAt })
    await this.collection.insertOne(doc)
    if (!approval) this.queuedHere.set(doc._id, structuredClone(doc))
    return doc
  }

  /** The pushes waiting for approval, or whose decision is being carried out, oldest first (a whole read of a small collection). */
  async awaitingApproval(): Promise<AwaitingApproval[]> {
    const entries = await this.awaiting.find({}).toArray()
    return entries.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  }

  /** The job's approval has been carried out (or the job is gone): it no longer waits. */
  async settled(id: string): Promise<void> {
    await this.awaiting.deleteOne({ _id: id })
  }

  /** An approved job becomes queued (by `_id` alone, see the top); the record as queued, or null when it is gone. */
  async approved(id: string, approval: JobApproval): Promise<JobRecord | null> {
    return this.collection.findOneAndUpdate({ _id: id }, { $set: { status: 'queued', approval } }, { returnDocument: 'after' })
  }

  /** One of the user's jobs, or null (also for another user's job). */
  async get(userId: string, id: string): Promise<JobRecord | null> {
    const record = await this.byId(id)
    return record?.userId === userId ? record : null
  }

  /** For the worker: the job whatever its owner (queued or running, else finished). */
  async byId(id: string): Promise<JobRecord | null> {
    const recent = this.recent.get(id)
    if (recent) return structuredClone(recent)
    return (await this.collection.findOne({ _id: id })) ?? this.history.findOne({ _id: id })
  }

  /**
   * Marks the job running (again, once its worker has not been heard of for `lockLifetimeMs`: it died)
   * unless it has finished; the record, or null when it has finished or another worker holds it. Agenda's lock is a
   * conditional update, which is not atomic on FerretDB 1.x (SQLite reads and writes in two steps), so
   * there two replicas can both lock one Agenda job, at once or a moment apart, and would run it twice
   * (test/faults/replicas.test.ts). So a job whose heartbeat is younger than a lock lifetime is left alone, and
   * each attempt is claimed by inserting `<job>:<attempt>` into `jobClaims`: a unique _id is atomic on
   * every MongoDB-compatible store. `abandonedAttempt`: this replica gave that attempt up (the
   * database was unreachable), so if it is still the record's latest, its heartbeat is ours and stale.
   */
  async start(id: string, lockLifetimeMs: number, abandonedAttempt?: number): Promise<JobRecord | null> {
    // A job queued here is known as queued, without a read, until its first start here: only an
    // attempt changes a queued record, and the attempt's claim below decides whether it is ours
    // (another replica that started it first holds the claim). Its removal drops it from here.
    const queued = this.queuedHere.get(id)
    this.queuedHere.delete(id)
    const current = queued ?? (await this.byId(id))
    if (!current || (current.status !== 'queued' && current.status !== 'running')) return null
    const heard = current.heartbeatAt ?? current.startedAt
    const ours = abandonedAttempt !== undefined && abandonedAttempt === current.attempts
    if (current.status === 'running' && !ours && heard && Date.now() - heard.getTime() < lockLifetimeMs) return null
    let attempt = current.attempts + 1
    for (;;) {
      try {
        await this.claims.insertOne({ _id: `${id}:${attempt}`, jobId: id, at: new Date() })
        break
      } catch (err) {
        if ((err as { code?: unknown }).code !== 11000) throw err
        // Claimed by another worker: it runs the job, unless it claimed a lock lifetime ago and never
        // marked the record (the database failed between the two writes); then the next attempt is ours.
        const claim = await this.claims.findOne({ _id: `${id}:${attempt}` })
        if (!claim || Date.now() - claim.at.getTime() < lockLifetimeMs) return null
        attempt++
      }
    }
    // The claim makes this attempt ours; the record is updated by `_id` alone (see the top).
    const started = await this.collection.findOneAndUpdate(
      { _id: id },
      { $set: { status: 'running', startedAt: new Date(), heartbeatAt: new Date(), attempts: attempt } },
      { returnDocument: 'after' },
    )
    return started?.status === 'running' ? started : null
  }

  /** The running attempt's worker is alive. */
  async heartbeat(id: string): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $set: { heartbeatAt: new Date() } })
  }

  /** Finished: the result (and archive), with the processor input the job used, in one record. */
  async succeed(
    record: JobRecord,
    result: JobRecord['result'],
    extra: { archiveId?: unknown; processorInput?: ProcessorInput } = {},
  ): Promise<void> {
    const done: JobRecord = { ...record, status: 'succeeded', result, finishedAt: new Date() }
    delete done.error
    if (extra.archiveId !== undefined) done.archiveId = extra.archiveId
    if (extra.processorInput !== undefined) done.processorInput = extra.processorInput
    await this.finish(done)
  }

  /** Failed: the error, with the processor input when the job got that far, in one record. */
  async fail(record: JobRecord, error: JobError, processorInput?: ProcessorInput): Promise<void> {
    const done: JobRecord = { ...record, status: 'failed', error, finishedAt: new Date() }
    delete done.result
    if (processorInput !== undefined) done.processorInput = processorInput
    await this.finish(done)
  }

  /**
   * Stores the final record in the history (an insert) and keeps it in memory; `dequeue` then takes
   * the job out of the queue. A record already in the history (an earlier attempt finished it, and
   * its removal from `jobs` was lost) stays as it is.
   */
  private async finish(done: JobRecord): Promise<void> {
    delete done.heartbeatAt
    try {
      await this.history.insertOne(done)
    } catch (err) {
      if ((err as { code?: unknown }).code !== 11000) throw err
    }
    this.recent.set(done._id, structuredClone(done))
  }

  /** Takes a finished job out of the queue (after `succeed` or `fail`). */
  async dequeue(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: id })
  }

  /**
   * One page of an environment's jobs, newest first (creation time, then id): queued and running ones
   * from `jobs`, finished ones from `jobHistory`, `limit` of them after `before` (the last job of the
   * previous page). The index `user_environment` serves both queries on MongoDB; on FerretDB each reads
   * its collection once (an environment detail page, not a hot path; retention bounds the history).
   */
  async listForEnvironment(
    /** Only this user's jobs; undefined: everyone's (a team's environment). */
    userId: string | undefined,
    environmentId: string,
    limit: number,
    before?: { createdAt: Date; id: string },
  ): Promise<JobRecord[]> {
    const filter = {
      ...(userId !== undefined && { userId }),
      environmentId,
      ...(before && {
        $or: [{ createdAt: { $lt: before.createdAt } }, { createdAt: before.createdAt, _id: { $lt: before.id } }],
      }),
    }
    const page = (collection: Collection<JobRecord>) =>
      collection
        .find(filter, { projection: { processorInput: 0 } })
        .sort({ createdAt: -1, _id: -1 })
        .limit(limit)
        .toArray()
    // The queue first (as `byId` reads): a job that finishes between the two reads is in both, and the
    // finished record wins; none is missed.
    const queued = await page(this.collection)
    const finished = await page(this.history)
    const byId = new Map<string, JobRecord>()
    for (const record of [...queued, ...finished]) byId.set(record._id, record)
    return [...byId.values()]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0))
      .slice(0, limit)
  }

  /** Forgets the in-memory copies of removed records (retention, deletion of an environment). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      this.recent.delete(id)
      this.queuedHere.delete(id)
    }
  }

  /** Removes an environment's jobs, whoever queued them (a team's members); the archive ids they held. */
  async removeForEnvironment(environmentId: string): Promise<unknown[]> {
    const docs: Pick<JobRecord, '_id' | 'archiveId'>[] = []
    for (const collection of [this.collection, this.history]) {
      docs.push(...(await collection.find({ environmentId }, { projection: { archiveId: 1 } }).toArray()))
      await collection.deleteMany({ environmentId })
    }
    this.forget(docs.map((d) => d._id))
    for (const memory of [this.recent, this.queuedHere])
      for (const [id, record] of memory.entries()) if (record.environmentId === environmentId) memory.delete(id)
    await this.awaiting.deleteMany({ _id: { $in: docs.map((d) => d._id) } })
    await this.claims.deleteMany({ jobId: { $in: docs.map((d) => d._id) } })
    return docs.map((d) => d.archiveId).filter((id) => id !== undefined && id !== null)
  }
}
