// One push per environment at a time (collection `pushLocks`, `_id` the environment id): a push job
// takes its environment's lock before it reads the configuration and generates, and gives it back
// when it ends; a later push waits for it, then generates from the configuration as it is then, so
// the branch ends with the latest configuration whichever push ran first. The holder refreshes the
// lock while it runs; a lock not refreshed for a lock lifetime (its worker died) may be taken over.
import type { Collection, Db } from 'mongodb'

interface LockDoc {
  _id: string
  jobId: string
  heardAt: Date
}

export class PushLocks {
  private readonly collection: Collection<LockDoc>

  constructor(db: Db) {
    this.collection = db.collection<LockDoc>('pushLocks')
  }

  /** Takes the environment's lock for the job (again, when it holds it already): null, or the id of the job holding it. */
  async take(environmentId: string, jobId: string, lifetimeMs: number): Promise<string | null> {
    try {
      await this.collection.insertOne({ _id: environmentId, jobId, heardAt: new Date() })
      return null
    } catch (err) {
      if ((err as { code?: unknown }).code !== 11000) throw err
    }
    const stale = new Date(Date.now() - lifetimeMs)
    const taken = await this.collection.updateOne(
      { _id: environmentId, $or: [{ jobId }, { heardAt: { $lt: stale } }] },
      { $set: { jobId, heardAt: new Date() } },
    )
    if (taken.matchedCount === 1) return null
    // Given back meanwhile: the next attempt takes it.
    return (await this.collection.findOne({ _id: environmentId }))?.jobId ?? ''
  }

  async refresh(environmentId: string, jobId: string): Promise<void> {
    await this.collection.updateOne({ _id: environmentId, jobId }, { $set: { heardAt: new Date() } })
  }

  async release(environmentId: string, jobId: string): Promise<void> {
    await this.collection.deleteOne({ _id: environmentId, jobId })
  }
}
