// The job records this process holds in memory beside the database (store.ts): the final records of
// jobs finished here lately, read first (a final record never changes), so a job's waiters are
// answered as soon as its final record is stored, without a read; and the records queued here and
// not yet started here, so a start here needs no read. Copies go in and out: a caller never holds
// the kept object.
import { LRUCache } from 'lru-cache'
import type { JobRecord } from './job-record.ts'

const MAX = 2000

export class JobMemory {
  private readonly finished = new LRUCache<string, JobRecord>({ max: MAX })
  private readonly queued = new LRUCache<string, JobRecord>({ max: MAX })

  /** A job just queued here (not awaiting approval). */
  queuedHere(record: JobRecord): void {
    this.queued.set(record._id, structuredClone(record))
  }

  /** The record of a job queued here and not yet started here, taken out: only its first start here may use it. */
  takeQueued(id: string): JobRecord | undefined {
    const record = this.queued.get(id)
    this.queued.delete(id)
    return record
  }

  /** A job's final record, stored. */
  finishedHere(record: JobRecord): void {
    this.finished.set(record._id, structuredClone(record))
  }

  /** A copy of the final record of a job finished here lately, or undefined. */
  finishedRecord(id: string): JobRecord | undefined {
    const record = this.finished.get(id)
    return record && structuredClone(record)
  }

  /** Forgets removed records (retention, deletion of an environment). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      this.finished.delete(id)
      this.queued.delete(id)
    }
  }

  /** Forgets every record of an environment (it is deleted). */
  forgetEnvironment(environmentId: string): void {
    for (const memory of [this.finished, this.queued])
      for (const [id, record] of memory.entries()) if (record.environmentId === environmentId) memory.delete(id)
  }
}
