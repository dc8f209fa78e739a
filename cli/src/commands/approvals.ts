// ies approvals list | approve | reject (docs/teams.md, "Approvals"): the pushes of production
// environments awaiting a second team member, and their decision.
import type { Command } from 'commander'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'

export function registerApprovals(program: Command, ctx: () => Context): void {
  const approvals = withExamples(
    program
      .command('approvals')
      .description('Pushes of production environments awaiting approval: another operator of the team approves or rejects them'),
    ['ies approvals list', 'ies approvals approve 0b8e…', 'ies approvals reject 0b8e… --reason "freeze week"'],
  )

  withExamples(approvals.command('list').description('The pushes awaiting approval in environments you may read'), [
    'ies approvals list',
    'ies approvals list --json',
  ]).action(async () => {
    const c = ctx()
    c.out.list(
      await (await c.client()).approvals(),
      'No pushes awaiting approval.',
      ['JOB', 'ENVIRONMENT', 'TEAM', 'REQUESTED BY', 'EXPIRES', 'YOURS TO DECIDE'],
      (a) => [a.jobId, a.environment.name, a.team.name, a.requestedBy.username, a.expiresAt, a.canDecide ? 'yes' : 'no'],
    )
  })

  withExamples(approvals.command('approve <job-id>').description('Approve a push (operator or more, not the requester): it is queued'), [
    'ies approvals approve 0b8e…',
  ]).action(async (jobId: string) => {
    const c = ctx()
    const job = await (await c.client()).approve(jobId)
    c.out.result(job, () => c.out.line(`Approved: push ${job.id} is ${job.status} (ies jobs get ${job.id} --wait).`))
  })

  withExamples(
    approvals
      .command('reject <job-id>')
      .description('Reject a push (operator or more, not the requester): it ends as APPROVAL_REJECTED, nothing is pushed')
      .option('--reason <text>', 'why (kept in the job and the history)'),
    ['ies approvals reject 0b8e… --reason "freeze week"'],
  ).action(async (jobId: string, opts: { reason?: string }) => {
    const c = ctx()
    const job = await (await c.client()).reject(jobId, opts.reason)
    c.out.result(job, () => c.out.line(`Rejected: push ${job.id} ended (${job.error?.code ?? job.status}).`))
  })
}
