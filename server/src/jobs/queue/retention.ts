// Retention of finished jobs and their archives (docs/internals/data-and-scale.md): per environment and job
// type, the last RETENTION_KEEP_PER_ENVIRONMENT finished jobs stay, and so does every job younger
// than RETENTION_MAX_AGE_MS; the others go with their archives. Also drops job claims (store.ts)
// older than the age limit of a lock's life. A sweep reads the history once (a scan on the embedded
// store: it runs in the background, every RETENTION_SWEEP_EVERY_MS, on every replica; deleting twice
// is harmless) and deletes in batches. Records of other kinds that are kept as long as jobs are
// (a plugin's, such as upgrade rollouts) are swept with it: each kind's sweep is given the age limit.
import type { JobRecord, JobStore } from './store.ts'
import type { ArchiveStore } from './archives.ts'

export interface RetentionPolicy {
  keepPerEnvironment: number
  maxAgeMs: number
}

/** How many records one delete names. */
const BATCH = 500

type Finished = Pick<JobRecord, '_id' | 'environmentId' | 'type' | 'finishedAt' | 'createdAt' | 'archiveId'>

/** The finished jobs the policy lets go: beyond the last N of their environment and type, and older than the age. */
export function expired(records: Finished[], policy: RetentionPolicy, now = Date.now()): Finished[] {
  const groups = new Map<string, Finished[]>()
  for (const r of records) {
    const key = `${r.environmentId}\u0000${r.type}`
    const group = groups.get(key)
    if (group) group.push(r)
    else groups.set(key, [r])
  }
  const time = (r: Finished) => (r.finishedAt ?? r.createdAt).getTime()
  const out: Finished[] = []
  for (const group of groups.values()) {
    group.sort((a, b) => time(b) - time(a))
    for (const r of group.slice(policy.keepPerEnvironment)) if (now - time(r) > policy.maxAgeMs) out.push(r)
  }
  return out
}

/** Removes the records of one kind that ended before `cutoff` (now less the age limit); how many. */
export type RetainedSweep = (cutoff: Date) => Promise<number>

/** One sweep; how many job records and claims it removed, and how many records of each other kind. */
export async function sweep(
  store: JobStore,
  archives: ArchiveStore,
  policy: RetentionPolicy,
  claimMaxAgeMs: number,
  others: ReadonlyMap<string, RetainedSweep> = new Map(),
) {
  const records = await store.history
    .find({}, { projection: { _id: 1, environmentId: 1, type: 1, finishedAt: 1, createdAt: 1, archiveId: 1 } })
    .toArray()
  const gone = expired(records, policy)
  for (let i = 0; i < gone.length; i += BATCH) {
    const batch = gone.slice(i, i + BATCH)
    // The records first: a job whose record is gone is a 404, never a download of a missing archive.
    await store.history.deleteMany({ _id: { $in: batch.map((r) => r._id) } })
    store.forget(batch.map((r) => r._id))
    await archives.remove(batch.map((r) => r.archiveId).filter((id) => id !== undefined && id !== null))
  }
  const claims = await store.claims.deleteMany({ at: { $lt: new Date(Date.now() - claimMaxAgeMs) } })
  const kept: Record<string, number> = {}
  for (const [kind, sweepKind] of others) kept[kind] = await sweepKind(new Date(Date.now() - policy.maxAgeMs))
  return { jobs: gone.length, claims: claims.deletedCount, others: kept }
}
