// The last drift check of each environment (collection `environmentDrift`, one document per
// environment, `_id` = its id): when it ran, its job, and what differed (addresses and attribute
// names; no values). Written when a drift job succeeds; GET /api/environments/:id serves it.
import type { Collection, Db } from 'mongodb'
import type { LastDrift, PlanResult } from '@ies/api/schemas/plans'

interface DriftDoc extends LastDrift {
  _id: string
}

export class DriftRecords {
  private readonly collection: Collection<DriftDoc>

  constructor(db: Db) {
    this.collection = db.collection<DriftDoc>('environmentDrift')
  }

  async record(environmentId: string, jobId: string, result: PlanResult): Promise<void> {
    const doc: DriftDoc = {
      _id: environmentId,
      jobId,
      checkedAt: new Date().toISOString(),
      drifted: result.resources.map((r) => ({ address: r.address, attributes: r.attributes.map((a) => a.name) })),
    }
    await this.collection.replaceOne({ _id: environmentId }, doc, { upsert: true })
  }

  /** The environment's last drift check; null before the first. */
  async last(environmentId: string): Promise<LastDrift | null> {
    const doc = await this.collection.findOne({ _id: environmentId })
    if (!doc) return null
    const { _id, ...last } = doc
    return last
  }

  async removeForEnvironment(environmentId: string): Promise<void> {
    await this.collection.deleteOne({ _id: environmentId })
  }
}
