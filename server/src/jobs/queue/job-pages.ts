// One page of an environment's jobs (store.ts's `listForEnvironment`), read from both collections a
// job record lives in: the queue (`jobs`) and the finished ones (`jobHistory`).
import type { Collection } from 'mongodb'
import type { JobRecord } from './job-record.ts'

/**
 * An environment's jobs, newest first (creation time, then id): queued and running ones from
 * `queue`, finished ones from `history`, `limit` of them after `before` (the last job of the
 * previous page). The index `user_environment` serves both queries on MongoDB; on FerretDB each reads
 * its collection once (an environment detail page, not a hot path; retention bounds the history).
 */
export async function environmentJobPage(
  collections: { queue: Collection<JobRecord>; history: Collection<JobRecord> },
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
  // The queue first (as the store's `byId` reads): a job that finishes between the two reads is in
  // both, and the finished record wins; none is missed.
  const queued = await page(collections.queue)
  const finished = await page(collections.history)
  const byId = new Map<string, JobRecord>()
  for (const record of [...queued, ...finished]) byId.set(record._id, record)
  return [...byId.values()]
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0))
    .slice(0, limit)
}
