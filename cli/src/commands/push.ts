// ies push <env> [--dry-run] [--plan] [--confirm-destroy ADDRESS ...] [--strategy merge|branch] [--format ...] [--include-*] [--no-wait]
import { Option, type Command } from 'commander'
import { PUSH_STRATEGIES } from '@ies/api'
import type { ApiClient, Job, PlanResult, PushBody, PushConflict, PushDryRunResult, PushStrategy } from '@ies/api'
import type { Context } from '../context.ts'
import { addFormatOption, addIncludeOptions, anyIncluded, includeOptions, type IncludeFlags } from '../generate-options.ts'
import { withExamples } from '../help.ts'
import { addWaitOptions, failedJob, waitForJob, waits, type WaitOptions } from '../job-wait.ts'
import { findEnvironment } from '../lookup.ts'
import { CommandFailed, EXIT, type Output } from '../output.ts'
import { printPushDiff } from '../push-diff.ts'
import { printPlan } from '../plan-output.ts'
import type { ConfigurationChange } from '@ies/api'
import { printConfigurationChange } from '../configuration-problems.ts'

const PUSH_PATH = '/api/environments/{id}/push'

/** The members the server's push body accepts, from its live OpenAPI document. */
export async function pushBodyMembers(client: ApiClient): Promise<Set<string>> {
  const doc = (await client.openapi()) as {
    paths?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: { properties?: object } }> } } }>
  }
  const schema = doc.paths?.[PUSH_PATH]?.post?.requestBody?.content?.['application/json']?.schema
  return new Set(Object.keys(schema?.properties ?? {}))
}

type PushOpts = IncludeFlags &
  WaitOptions & {
    dryRun?: boolean
    plan?: boolean
    confirmDestroy?: string[]
    strategy?: string
    format?: string
    generationJob?: string
  }

export const STRATEGY_TEXT = 'merge: onto the branch (a conflict fails the push, exit 6); branch: onto a new branch for review'

export function printConflicts(out: Output, conflicts: PushConflict[] | undefined): void {
  if (!conflicts?.length) return
  out.line(out.colors.yellow(`${conflicts.length} conflicting file${conflicts.length === 1 ? '' : 's'}:`))
  for (const conflict of conflicts) out.line(`  ${conflict.file} (${conflict.kind})`)
}

/** The outcome of a push job that succeeded: a dry run's diff, or what landed where. */
export function printPushResult(out: Output, job: Job): void {
  const result = job.result as unknown as Record<string, unknown> | undefined
  if (result?.dryRun === true) {
    const dry = result as unknown as PushDryRunResult
    out.line(
      `Dry run: a push to ${dry.branch} would change ${dry.changes.length} file${dry.changes.length === 1 ? '' : 's'}; nothing was pushed.`,
    )
    printConfigurationChange(out, result.configurationChange as ConfigurationChange | undefined, true)
    if (dry.changes.length > 0) printPushDiff(out, dry.changes)
    printConflicts(out, dry.conflicts)
    if (dry.plan && 'unavailable' in dry.plan) out.note(`No plan: ${dry.plan.unavailable}`)
    else if (dry.plan) printPlan(out, dry.plan)
    return
  }
  printConfigurationChange(out, result?.configurationChange as ConfigurationChange | undefined, false)
  printConflicts(out, result?.conflicts as PushConflict[] | undefined)
  for (const warning of (result?.warnings as string[] | undefined) ?? []) out.note(`Warning: ${warning}`)
  if (result?.changed === false)
    out.line(`Nothing to push: ${String(result.branch)} already holds these files (${String(result.commit).slice(0, 12)}).`)
  else
    out.line(
      `Pushed ${String(result?.fileCount ?? '?')} files to ${String(result?.branch)} of ${String(result?.url)}: ${String(result?.commit).slice(0, 12)}.`,
    )
}

export function registerPush(program: Command, ctx: () => Context): void {
  const command = program
    .command('push <env>')
    .description("Generate and push to the environment's Git repository; --dry-run prints the diff and pushes nothing")
    .option('--dry-run', 'show what the push would change (like git diff --stat plus hunks); nothing is pushed')
    .option('--plan', 'a dry run that also shows the Terraform plan of what would be pushed (exit 8: data at risk)')
    .option(
      '--confirm-destroy <address...>',
      'let the push replace or destroy these data-holding resources (exactly the addresses its plan names)',
    )
    .addOption(new Option('--strategy <strategy>', STRATEGY_TEXT).choices(PUSH_STRATEGIES))
  addFormatOption(command, 'the full repository')
  addIncludeOptions(command, '; any --include-* pushes exactly the parts named (default: all of them)')
  command.option('--generation-job <id>', 'push the files of this successful generation job instead of generating afresh')
  addWaitOptions(command, 'push')
  withExamples(command, [
    '# what would change on the branch, then push it',
    'ies push shop-dev --dry-run',
    'ies push shop-dev',
    '# what it would do in the cloud, then push although it replaces the database',
    'ies push shop-dev --plan',
    'ies push shop-dev --confirm-destroy module.rds[0].aws_db_instance.this',
    '# the changes on a new branch, for a pull request',
    'ies push shop-dev --strategy branch',
    '# only the Terraform stack and its backend',
    'ies push shop-dev --include-backend',
  ])
  command.action(async (name: string, opts: PushOpts) => {
    const c = ctx()
    const client = await c.client()
    const environment = await findEnvironment(client, name)
    const body: PushBody = {
      ...(opts.format && { format: opts.format as 'terraform' }),
      ...(anyIncluded(opts) && { options: includeOptions(opts) }),
      ...(opts.generationJob && { generationJobId: opts.generationJob }),
      ...((opts.dryRun || opts.plan) && { dryRun: true }),
      ...(opts.plan && { plan: true }),
      ...(opts.confirmDestroy && { confirmDestroy: opts.confirmDestroy }),
      ...(opts.strategy && { strategy: opts.strategy as PushStrategy }),
    }
    await refuseUnknownMembers(client, body)
    let job: Job = await client.push(environment.id, body)
    if (job.status === 'awaiting-approval') {
      c.out.note(`Push job ${job.id} awaits approval by another operator of the team (ies approvals approve ${job.id}).`)
    }
    if (!waits(opts)) {
      c.out.result(job, () => c.out.line(`Queued push job ${job.id} (ies jobs wait ${job.id}).`))
      return
    }
    job = await waitForJob(client, c.out, job.id, { timeoutSeconds: opts.timeout })
    job = await confirmOnTerminal(c, job, async (addresses) => {
      const again = await client.push(environment.id, { ...body, confirmDestroy: addresses })
      return waitForJob(client, c.out, again.id, { timeoutSeconds: opts.timeout })
    })
    if (job.status !== 'succeeded') throw failedJob(c.out, job)
    c.out.result(job, () => printPushResult(c.out, job))
    const plan = (job.result as { plan?: PlanResult | { unavailable: string } } | undefined)?.plan
    if (opts.plan && plan && 'dataAtRisk' in plan && plan.dataAtRisk.length > 0)
      throw new CommandFailed('The push would replace or destroy resources holding data', EXIT.DATA_AT_RISK, 'DATA_AT_RISK')
  })
}

/**
 * A push refused because it would destroy data: on a terminal, the addresses are shown and the
 * user types them back (each, exactly) to push again with them confirmed; elsewhere the refusal stands.
 */
async function confirmOnTerminal(c: Context, job: Job, pushAgain: (addresses: string[]) => Promise<Job>): Promise<Job> {
  const addresses = (job.error?.details as { addresses?: string[] } | undefined)?.addresses
  if (job.error?.code !== 'PUSH_WOULD_DESTROY_DATA' || !addresses || !process.stdin.isTTY || !c.out.interactive) return job
  c.out.line(c.out.colors.red('The push would replace or destroy resources holding data:'))
  for (const address of addresses) c.out.line(c.out.colors.red(`  ${address}`))
  const { input } = await import('@inquirer/prompts')
  for (const address of addresses) {
    const typed = await input({ message: `Type ${address} to confirm (anything else: nothing is pushed)` })
    if (typed.trim() !== address) return job
  }
  return pushAgain(addresses)
}

/** The server drops members it does not know: a dry run it did not understand would push for real. */
async function refuseUnknownMembers(client: ApiClient, body: PushBody): Promise<void> {
  const wanted = (['dryRun', 'strategy', 'plan', 'confirmDestroy'] as const).filter((key) => body[key] !== undefined)
  if (wanted.length === 0) return
  const members = await pushBodyMembers(client)
  const missing = wanted.filter((key) => !members.has(key))
  if (missing.length > 0) {
    throw new CommandFailed(
      `This server's push API does not accept ${missing.join(' or ')}; nothing was pushed`,
      EXIT.FAILURE,
      'UNSUPPORTED',
    )
  }
}
