// A replacement conditional on the version its writer read (optimistic concurrency: README,
// "Concurrent writes"), written as each store serves it by index. MongoDB: one atomic
// `replaceOne({ _id, version })`. FerretDB 1.24 looks a document up by index only for a filter that is
// exactly `{ _id }` (any other filter reads the whole collection, so its cost grows with the number of
// environments) and applies a conditional write in two steps anyway, a read and then a write; there
// the same two steps are taken by `_id`: read, compare the version, replace. On FerretDB what keeps
// such writes correct is that the writers of one document take turns in the process (`ownerLock`).
import type { Collection, Db, Filter, OptionalUnlessRequiredId } from 'mongodb'
import { isFerretDB } from './db.ts'

export interface Versioned {
  _id: string
  /** Absent on records older than versioning. */
  version?: number
}

/** Replaces the document if it still has `version` (undefined: none); false when it has another, or is gone. */
export async function replaceAtVersion<T extends Versioned>(
  db: Db,
  collection: Collection<T>,
  version: number | undefined,
  doc: T,
): Promise<boolean> {
  const byId = { _id: doc._id } as Filter<T>
  if (await isFerretDB(db)) {
    const stored = await collection.findOne(byId, { projection: { version: 1 } })
    if (!stored || stored.version !== version) return false
    return (await collection.replaceOne(byId, doc as OptionalUnlessRequiredId<T>)).matchedCount === 1
  }
  const atVersion = { _id: doc._id, version: version === undefined ? { $exists: false } : version } as Filter<T>
  return (await collection.replaceOne(atVersion, doc as OptionalUnlessRequiredId<T>)).matchedCount === 1
}
