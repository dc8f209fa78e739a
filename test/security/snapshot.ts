// Raw database documents: everything a user owns (for "changes nothing"), and everything there is
// (for secret scans). Read straight from MongoDB, not through the API.
import type { Db } from 'mongodb'
import { EJSON } from 'bson'

export interface OwnedSnapshot {
  documents: number
  /** collection -> EJSON of its documents owned by the user, sorted by _id. */
  byCollection: Record<string, string[]>
}

export async function ownedSnapshot(db: Db, userId: string): Promise<OwnedSnapshot> {
  const byCollection: Record<string, string[]> = {}
  let documents = 0
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    const docs = await db
      .collection(name)
      .find({ $or: [{ userId }, { 'metadata.userId': userId }, { _id: userId as never }] })
      .sort({ _id: 1 })
      .toArray()
    if (docs.length === 0) continue
    byCollection[name] = docs.map((d) => EJSON.stringify(d, { relaxed: false }))
    documents += docs.length
  }
  return { documents, byCollection }
}

/** Every document of every collection, as `[collection, EJSON text]` (GridFS chunks included, as base64). */
export async function allDocuments(db: Db): Promise<[string, string][]> {
  const out: [string, string][] = []
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    for (const doc of await db.collection(name).find({}).toArray()) out.push([name, EJSON.stringify(doc, { relaxed: false })])
  }
  return out
}
