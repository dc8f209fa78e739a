// A job's attempts are claimed in `jobClaims` (store.ts's `start`): inserting `<job>:<attempt>` is
// atomic on every MongoDB-compatible store (a unique _id), where Agenda's conditional lock is not on
// FerretDB 1.x, so only one worker runs an attempt.
import type { Collection } from 'mongodb'
import type { JobClaim } from './job-record.ts'

/**
 * Claims the attempt `attempt` of job `id` (or a later one): the attempt claimed, or null when
 * another worker claimed it and runs the job. A claim older than `lockLifetimeMs` whose worker never
 * marked the record (the database failed between the two writes) gives the next attempt to this one.
 */
export async function claimAttempt(
  claims: Collection<JobClaim>,
  id: string,
  attempt: number,
  lockLifetimeMs: number,
): Promise<number | null> {
  for (;;) {
    try {
      await claims.insertOne({ _id: `${id}:${attempt}`, jobId: id, at: new Date() })
      return attempt
    } catch (err) {
      if ((err as { code?: unknown }).code !== 11000) throw err
      const claim = await claims.findOne({ _id: `${id}:${attempt}` })
      if (!claim || Date.now() - claim.at.getTime() < lockLifetimeMs) return null
      attempt++
    }
  }
}
