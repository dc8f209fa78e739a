// The job resource as the API serves it: the one source for validation, types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../string-enum.ts'
import { JOB_STATUSES, JOB_TYPES, type JobStatus, type JobType } from '../values.ts'
import { FormatSchema, GenerateOptions } from './generation.ts'
import { PlanResult } from './plans.ts'
import { DryRunResult, PushResult } from './push.ts'
import { JobApproval, toJobApproval } from './approvals.ts'

const Finding = Type.Object(
  {
    file: Type.String(),
    line: Type.Integer(),
    code: Type.String(),
    message: Type.String(),
    severity: Type.Optional(Type.String()),
    path: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: false },
)

const JobError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Union([Type.Array(Finding), Type.Record(Type.String(), Type.Any())])),
})

const GenerateResult = Type.Object({
  format: FormatSchema,
  options: GenerateOptions,
  templatesCommit: Type.String(),
  fileCount: Type.Integer(),
  warnings: Type.Integer({ description: 'Processor warnings (e.g. UNRESOLVED_PARAM); the files were generated.' }),
  archive: Type.Object({ filename: Type.String(), size: Type.Integer(), sha256: Type.String() }),
})

export const Job = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: StringEnum(JOB_TYPES),
  status: StringEnum(JOB_STATUSES),
  environmentId: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  error: Type.Optional(JobError),
  result: Type.Optional(Type.Union([GenerateResult, PushResult, DryRunResult, PlanResult])),
  approval: Type.Optional(JobApproval),
})
export type Job = Static<typeof Job>

export const JobParams = Type.Object({ jobId: Type.String({ maxLength: 64 }) })

/** What a generation produced: the archive's files (paths and sizes in bytes) and the templates commit. */
export const JobFiles = Type.Object({
  jobId: Type.String(),
  templatesCommit: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), size: Type.Integer() })),
})

/** At most this many jobs in one batch status request. */
export const MAX_BATCH_JOBS = 50

export const JobBatchQuery = Type.Object({
  ids: Type.String({
    minLength: 1,
    maxLength: MAX_BATCH_JOBS * 65,
    description: `Job ids separated by commas (at most ${MAX_BATCH_JOBS}).`,
  }),
  wait: Type.Boolean({
    default: false,
    description:
      'Answer once one of the jobs has finished (or is not found), or after JOBS_WAIT_TIMEOUT_MS with their status then (long polling).',
  }),
})

export const JobQuery = Type.Object({
  wait: Type.Boolean({
    default: false,
    description: 'Answer once the job has finished, or after JOBS_WAIT_TIMEOUT_MS with its status then (long polling).',
  }),
})

/** The members of the server's job record (server/src/jobs/queue/store.ts) a job in the API shows. */
export interface StoredJob {
  _id: string
  type: JobType
  status: JobStatus
  environmentId: string
  createdAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  error?: object
  result?: object
  approval?: Parameters<typeof toJobApproval>[0]
}

/** A stored job record as the API serves it. */
export function toJob(doc: StoredJob): Job {
  return {
    id: doc._id,
    type: doc.type,
    status: doc.status,
    environmentId: doc.environmentId,
    createdAt: doc.createdAt.toISOString(),
    startedAt: doc.startedAt ? doc.startedAt.toISOString() : null,
    finishedAt: doc.finishedAt ? doc.finishedAt.toISOString() : null,
    ...(doc.error && { error: doc.error as Job['error'] }),
    ...(doc.result && { result: doc.result as Job['result'] }),
    ...(doc.approval && { approval: toJobApproval(doc.approval) }),
  }
}
