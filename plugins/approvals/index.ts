// /api/approvals: pushes of production environments awaiting a team member's approval (docs/teams.md).
//   GET  /approvals                        those in environments the caller may read (`canDecide`: theirs to decide)
//   POST /approvals/:jobId/approve         an operator or more of the team, not the requester: the push is queued
//   POST /approvals/:jobId/reject { reason? }  the same: the push ends as APPROVAL_REJECTED, nothing is pushed
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ArrayEnvelope, Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { Approval, ApprovalParams, RejectInput } from '@ies/api/schemas/approvals'
import { Job, toJob } from '@ies/api/schemas/jobs'

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody }

const approvals: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/', { schema: { response: { 200: ArrayEnvelope(Approval), ...errors } } }, async (request) =>
    ok(request, await app.approvals.list(request)),
  )

  app.post('/:jobId/approve', { schema: { params: ApprovalParams, response: { 200: Envelope(Job), ...errors } } }, async (request) =>
    ok(request, toJob(await app.approvals.decide(request, request.params.jobId, 'approved'))),
  )

  app.post(
    '/:jobId/reject',
    { schema: { params: ApprovalParams, body: RejectInput, response: { 200: Envelope(Job), ...errors } } },
    async (request) => ok(request, toJob(await app.approvals.decide(request, request.params.jobId, 'rejected', request.body.reason))),
  )
}

export default approvals
