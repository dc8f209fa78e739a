// Approvals of pushes of production environments (docs/teams.md): the one source for a job's approval
// as jobs and the approvals list show it, and for the routes' parameters.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../string-enum.ts'

export const APPROVAL_DECISIONS = ['approved', 'rejected', 'expired'] as const
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number]

/** The job error codes an approval ends a push with. */
export const APPROVAL_CODES = { rejected: 'APPROVAL_REJECTED', expired: 'APPROVAL_EXPIRED' } as const

const Person = Type.Object({
  userId: Type.String(),
  username: Type.String({ description: 'The identity provider user name; `service-account-<client>` for a client.' }),
})

/** A job's approval: who asked, until when, and who decided. */
export const JobApproval = Type.Object({
  requestedBy: Person,
  expiresAt: Type.String({ format: 'date-time' }),
  decision: Type.Optional(StringEnum(APPROVAL_DECISIONS)),
  decidedBy: Type.Optional(Person),
  decidedAt: Type.Optional(Type.String({ format: 'date-time' })),
})
export type JobApproval = Static<typeof JobApproval>

/** A push awaiting approval, as GET /api/approvals lists it. */
export const Approval = Type.Object({
  jobId: Type.String(),
  environment: Type.Object({ id: Type.String(), name: Type.String() }),
  team: Type.Object({ id: Type.String(), name: Type.String() }),
  requestedBy: Person,
  requestedAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  /** Whether the caller may approve or reject it (an operator or more of the team, not the requester). */
  canDecide: Type.Boolean(),
})
export type Approval = Static<typeof Approval>

export const ApprovalParams = Type.Object({ jobId: Type.String({ maxLength: 64 }) })

/** A rejection may say why (kept in the job's error and the history). */
export const RejectInput = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false })
export type RejectInput = Static<typeof RejectInput>

/** The stored approval (dates as Date) as the API serves it. */
export function toJobApproval(stored: {
  requestedBy: { userId: string; username: string }
  expiresAt: Date
  decision?: ApprovalDecision
  decidedBy?: { userId: string; username: string }
  decidedAt?: Date
}): JobApproval {
  return {
    requestedBy: stored.requestedBy,
    expiresAt: stored.expiresAt.toISOString(),
    ...(stored.decision && { decision: stored.decision }),
    ...(stored.decidedBy && { decidedBy: stored.decidedBy }),
    ...(stored.decidedAt && { decidedAt: stored.decidedAt.toISOString() }),
  }
}
