// The shapes of a job's records (store.ts keeps them): the job record the API serves, its
// parameters, result, error and approval, a push waiting for approval, and a claim.
import type { Format, GenerateOptions } from '../generation/selection.ts'
import type { ProcessorInput } from '../generation/transform.ts'
import type { JobStatus, JobType } from '@ies/api/values'

export interface JobError {
  code: string
  message: string
  details?: unknown
}

export interface GenerateParams {
  format: Format
  options: GenerateOptions
}

export interface PushParams extends GenerateParams {
  /** A successful generation of the same environment whose files are pushed. */
  generationJobId?: string
}

export interface GenerateResult {
  format: Format
  options: GenerateOptions
  templatesCommit: string
  fileCount: number
  warnings: number
  archive: { filename: string; size: number; sha256: string }
}

export interface PushResult {
  commit: string
  branch: string
  url: string
  changed: boolean
  templatesCommit: string
  fileCount: number
  generationJobId?: string
}

/** Who asked for a push that waits for approval, until when, and who decided (plugins/approvals). */
export interface JobApproval {
  requestedBy: { userId: string; username: string }
  teamId: string
  expiresAt: Date
  decidedBy?: { userId: string; username: string }
  decision?: 'approved' | 'rejected' | 'expired'
  decidedAt?: Date
}

/**
 * A push waiting for approval, in `jobsAwaitingApproval` by the job's `_id` (plugins/approvals): inserted
 * before the held job record and deleted once its decision (approval, rejection, expiry) has been
 * carried out or its environment is deleted. So the waiting pushes are read without scanning `jobs`
 * by status (a whole-queue read on FerretDB): this collection holds only them.
 */
export interface AwaitingApproval {
  _id: string
  environmentId: string
  expiresAt: Date
  createdAt: Date
}

/**
 * A claim in `jobClaims`: a job's attempt (`<job>:<attempt>`), its approval decision (`<job>:decision`,
 * with the decision, who and why) or the taking over of a decision whose decider died (`<job>:settle:<n>`).
 */
export interface JobClaim {
  _id: string
  jobId: string
  at: Date
  decision?: 'approved' | 'rejected' | 'expired'
  decidedBy?: { userId: string; username: string }
  reason?: string
}

export interface JobRecord {
  _id: string
  type: JobType
  userId: string
  environmentId: string
  status: JobStatus
  params: GenerateParams | PushParams
  /** The processor input the job used (the transform's output; never a secret). */
  processorInput?: ProcessorInput
  result?: GenerateResult | PushResult
  error?: JobError
  /** GridFS file of the archive (generate jobs). */
  archiveId?: unknown
  attempts: number
  createdAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  /** Set when an attempt starts and whenever its worker touches its lock (see `start`). */
  heartbeatAt?: Date
  /** A push that needed (or still needs) a team member's approval. */
  approval?: JobApproval
}
