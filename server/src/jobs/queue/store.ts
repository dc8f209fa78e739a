// The job records the API serves, always scoped by the owning user. Agenda's own collection only
// dispatches; this record carries status, timestamps, result and error. A queued or running job's
// record is in `jobs`, the only collection written in place (start, heartbeats), which so stays as
// small as the queue; when the job finishes, its final record is inserted into `jobHistory`
// (insert-only; retention.ts prunes it) and then removed from `jobs`. A read looks in `jobs`, then in
// `jobHistory`: in that order a job that finishes meanwhile is found in one or the other.
//
// Records finished in this process lately are also kept in memory (job-memory.ts) and read from there
// first (a final record never changes): a job's waiters are answered as soon as its final record is
// stored, before it leaves the queue (runner.ts), without a read. Deletions drop them from there too.
// The records' shapes are job-record.ts's; an attempt's claim job-claims.ts's, a page of an
// environment's jobs job-pages.ts's.
//
// Every query on the hot path filters by `_id` alone and checks owner and status in code: FerretDB 1.x
// (SQLite) serves by index only a filter that is exactly `{ _id: <string or ObjectId> }`
// (scripts/build-ferretdb.sh); any other filter (`{ _id, userId }`, `{ _id, status }`) reads and
// decodes the whole collection. The same queries use the `_id` index on MongoDB.
import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import type { ProcessorInput } from '../generation/transform.ts'
import { claimAttempt } from './job-claims.ts'
import { JobMemory } from './job-memory.ts'
import { environmentJobPage } from './job-pages.ts'
import type { JobType } from '@ies/api/values'
import type { AwaitingApproval, JobApproval, JobClaim, JobError, JobRecord } from './job-record.ts'

export { JOB_STATUSES, JOB_TYPES, type JobStatus, type JobType } from '@ies/api/values'
export type {
  AwaitingApproval,
  GenerateParams,
  GenerateResult,
  JobApproval,
  JobClaim,
  JobError,
  JobRecord,
  PushParams,
  PushResult,
} from './job-record.ts'

export class JobStore {
  readonly collection: Collection<JobRecord>

  /** Finished jobs' final records (insert-only, pruned by retention.ts). */
  readonly history: Collection<JobRecord>

  /** One document per started attempt of a job (see `start`), and approval decisions (plugins/approvals). */
  readonly claims: Collection<JobClaim>

  /** The pushes waiting for approval (see `AwaitingApproval`). */
  readonly awaiting: Collection<AwaitingApproval>

  /** Final records of jobs finished here lately, and records queued here not yet started here (see the top). */
  private readonly memory = new JobMemory()

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
    if (!approval) this.memory.queuedHere(doc)
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
    return this.memory.finishedRecord(id) ?? (await this.collection.findOne({ _id: id })) ?? this.history.findOne({ _id: id })
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
    const current = this.memory.takeQueued(id) ?? (await this.byId(id))
    if (!current || (current.status !== 'queued' && current.status !== 'running')) return null
    const heard = current.heartbeatAt ?? current.startedAt
    const ours = abandonedAttempt !== undefined && abandonedAttempt === current.attempts
    if (current.status === 'running' && !ours && heard && Date.now() - heard.getTime() < lockLifetimeMs) return null
    // None: another worker claimed the attempt and runs the job (job-claims.ts).
    const attempt = await claimAttempt(this.claims, id, current.attempts + 1, lockLifetimeMs)
    if (attempt === null) return null
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
    this.memory.finishedHere(done)
  }

  /** Takes a finished job out of the queue (after `succeed` or `fail`). */
  async dequeue(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: id })
  }

  /** One page of an environment's jobs, newest first, from the queue and the history (job-pages.ts). */
  listForEnvironment(
    /** Only this user's jobs; undefined: everyone's (a team's environment). */
    userId: string | undefined,
    environmentId: string,
    limit: number,
    before?: { createdAt: Date; id: string },
  ): Promise<JobRecord[]> {
    return environmentJobPage({ queue: this.collection, history: this.history }, userId, environmentId, limit, before)
  }

  /** Forgets the in-memory copies of removed records (retention, deletion of an environment). */
  forget(ids: Iterable<string>): void {
    this.memory.forget(ids)
  }

  /** Removes an environment's jobs, whoever queued them (a team's members); the archive ids they held. */
  async removeForEnvironment(environmentId: string): Promise<unknown[]> {
    const docs: Pick<JobRecord, '_id' | 'archiveId'>[] = []
    for (const collection of [this.collection, this.history]) {
      docs.push(...(await collection.find({ environmentId }, { projection: { archiveId: 1 } }).toArray()))
      await collection.deleteMany({ environmentId })
    }
    this.forget(docs.map((d) => d._id))
    this.memory.forgetEnvironment(environmentId)
    await this.awaiting.deleteMany({ _id: { $in: docs.map((d) => d._id) } })
    await this.claims.deleteMany({ jobId: { $in: docs.map((d) => d._id) } })
    return docs.map((d) => d.archiveId).filter((id) => id !== undefined && id !== null)
  }
}
