// Which environments are checked for drift on a schedule (`driftCheckHours`): a small collection of
// its own, one document per such environment by its `_id`, written with each write of the record.
// The schedule reads it whole on every scan (plugins/plans/drift-schedule.ts); a filter on the
// environments themselves would read the whole table on the embedded store.
import type { Collection, Db } from 'mongodb'
import type { EnvironmentRecord } from './record.ts'

interface ScheduledDoc {
  _id: string
  userId: string
  everyHours: number
}

export interface DriftScheduled {
  id: string
  userId: string
  everyHours: number
}

export class DriftScheduledList {
  private readonly collection: Collection<ScheduledDoc>

  constructor(db: Db) {
    this.collection = db.collection<ScheduledDoc>('environmentsDriftScheduled')
  }

  /** Keeps the list in step with a written record: listed while it has `driftCheckHours`. */
  async keep(doc: Pick<EnvironmentRecord, '_id' | 'userId' | 'driftCheckHours'>): Promise<void> {
    if (doc.driftCheckHours)
      await this.collection.replaceOne({ _id: doc._id }, { userId: doc.userId, everyHours: doc.driftCheckHours }, { upsert: true })
    else await this.collection.deleteOne({ _id: doc._id })
  }

  async remove(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: id })
  }

  async all(): Promise<DriftScheduled[]> {
    const docs = await this.collection.find({}).toArray()
    return docs.map((d) => ({ id: d._id, userId: d.userId, everyHours: d.everyHours }))
  }
}
