// One decision per held push (desk.ts): approving, rejecting and expiring each first insert
// `<job>:decision` into the job claims (a unique `_id`, atomic on every MongoDB-compatible store,
// FerretDB included), so of two deciders, or a decision racing the expiry, exactly one wins. A
// decision not carried out for a lock lifetime is taken over by the sweep of whichever replica first
// inserts `<job>:settle:<n>`. Also the errors a push that was not approved ends with.
import type { Collection } from 'mongodb'
import type { JobClaim, JobRecord } from '@ies/server/jobs/queue/store'
import { APPROVAL_CODES } from '@ies/api/schemas/approvals'

export const decisionId = (jobId: string) => `${jobId}:decision`

const isDuplicateKey = (err: unknown) => (err as { code?: unknown }).code === 11000

export class DecisionClaims {
  /** `claims`: the job store's claims collection, read when first used (the store is decorated by then). */
  constructor(private readonly claims: () => Collection<JobClaim>) {}

  /** The one decision on a job, or null when it was taken already. */
  async claim(record: JobRecord, decision: Pick<JobClaim, 'decision' | 'decidedBy' | 'reason'>): Promise<JobClaim | null> {
    const claim: JobClaim = { _id: decisionId(record._id), jobId: record._id, at: new Date(), ...decision }
    return (await this.insert(claim)) ? claim : null
  }

  /** The decision taken on a job, or null. */
  decided(jobId: string): Promise<JobClaim | null> {
    return this.claims().findOne({ _id: decisionId(jobId) })
  }

  /**
   * Takes over a decision not carried out for `grace` (its decider died, or is slow): the next
   * `<job>:settle:<n>` claim is this replica's, unless another replica's is younger than `grace`.
   */
  async takeOver(jobId: string, decided: JobClaim, grace: number): Promise<JobClaim | null> {
    let latest = decided
    for (let n = 1; ; n++) {
      if (Date.now() - latest.at.getTime() < grace) return null
      const claim: JobClaim = { _id: `${jobId}:settle:${n}`, jobId, at: new Date() }
      if (await this.insert(claim)) return claim
      const held = await this.claims().findOne({ _id: claim._id })
      if (!held) return null
      latest = held
    }
  }

  private async insert(claim: JobClaim): Promise<boolean> {
    try {
      await this.claims().insertOne(claim)
      return true
    } catch (err) {
      if (isDuplicateKey(err)) return false
      throw err
    }
  }
}

/** The error of a rejected push: who rejected it and why. */
export function rejection(claim: JobClaim): { code: string; message: string } {
  const why = claim.reason ? `: ${claim.reason}` : ''
  return { code: APPROVAL_CODES.rejected, message: `${claim.decidedBy?.username ?? 'A team member'} rejected the push${why}` }
}

/** The error of a push nobody approved within `expiryMs`. */
export function expiry(expiryMs: number): { code: string; message: string } {
  const minutes = Math.round(expiryMs / 60_000)
  return {
    code: APPROVAL_CODES.expired,
    message: `No team member approved the push within ${minutes >= 1 ? `${minutes} min` : `${expiryMs} ms`} (APPROVAL_EXPIRY_MS)`,
  }
}
