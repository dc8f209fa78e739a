// ies push <env> [--dry-run] [--strategy branch]
import { Option, type Command } from 'commander'
import type { ApiClient, Job, PushBody, PushConflict, PushDryRunResult, PushStrategy } from '../client/index.ts'
import type { Context } from '../context.ts'
import { jobFailure, waitForJob } from '../job-wait.ts'
import { findEnvironment } from '../lookup.ts'
import { CommandFailed, EXIT } from '../output.ts'
import { printPushDiff } from '../push-diff.ts'
import { FORMATS } from './generate.ts'

const PUSH_PATH = '/api/environments/{id}/push'

/** The members the server's push body accepts, from its live OpenAPI document. */
export async function pushBodyMembers(client: ApiClient): Promise<Set<string>> {
  const doc = (await client.openapi()) as {
    paths?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: { properties?: object } }> } } }>
  }
  const schema = doc.paths?.[PUSH_PATH]?.post?.requestBody?.content?.['application/json']?.schema
  return new Set(Object.keys(schema?.properties ?? {}))
}

interface PushOpts {
  dryRun?: boolean
  strategy?: string
  format?: string
  generationJob?: string
  wait: boolean
  timeout?: number
}

export function registerPush(program: Command, ctx: () => Context): void {
  program
    .command('push <env>')
    .description("Generate and push to the environment's Git repository; --dry-run prints the diff and pushes nothing")
    .option('--dry-run', 'show what the push would change (like git diff --stat plus hunks); nothing is pushed')
    .addOption(
      new Option('--strategy <strategy>', 'merge: onto the branch (a conflict fails the push); branch: onto a new branch').choices([
        'merge',
        'branch',
      ]),
    )
    .addOption(new Option('--format <format>', 'what to generate (default: the full repository)').choices(FORMATS))
    .option('--generation-job <id>', 'push the files of this successful generation job')
    .option('--no-wait', 'queue the push and print the job id')
    .option('--timeout <seconds>', 'give up waiting after this long', Number)
    .action(async (name: string, opts: PushOpts) => {
      const c = ctx()
      const client = await c.client()
      const environment = await findEnvironment(client, name)
      const body: PushBody = {
        ...(opts.format && { format: opts.format as 'terraform' }),
        ...(opts.generationJob && { generationJobId: opts.generationJob }),
        ...(opts.dryRun && { dryRun: true }),
        ...(opts.strategy && { strategy: opts.strategy as PushStrategy }),
      }
      // The server drops members it does not know: a dry run it did not understand would push for real.
      const wanted = (['dryRun', 'strategy'] as const).filter((key) => body[key] !== undefined)
      if (wanted.length > 0) {
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
      let job: Job = await client.push(environment.id, body)
      if (!opts.wait) {
        c.out.result(job, () => c.out.line(`Queued push job ${job.id} (ies jobs wait ${job.id}).`))
        return
      }
      job = await waitForJob(client, c.out, job.id, { timeoutSeconds: opts.timeout })
      if (job.status !== 'succeeded') throw jobFailure(job)
      const result = job.result as unknown as Record<string, unknown> | undefined
      const printConflicts = (conflicts: PushConflict[] | undefined) => {
        if (!conflicts?.length) return
        c.out.line(c.out.colors.yellow(`${conflicts.length} conflicting file${conflicts.length === 1 ? '' : 's'}:`))
        for (const conflict of conflicts) c.out.line(`  ${conflict.file} (${conflict.kind})`)
      }
      c.out.result(job, () => {
        if (result?.dryRun === true) {
          const dry = result as unknown as PushDryRunResult
          c.out.line(
            `Dry run: a push to ${dry.branch} would change ${dry.changes.length} file${dry.changes.length === 1 ? '' : 's'}; nothing was pushed.`,
          )
          if (dry.changes.length > 0) printPushDiff(c.out, dry.changes)
          printConflicts(dry.conflicts)
          return
        }
        printConflicts(result?.conflicts as PushConflict[] | undefined)
        for (const warning of (result?.warnings as string[] | undefined) ?? []) c.out.note(`Warning: ${warning}`)
        if (result?.changed === false)
          c.out.line(`Nothing to push: ${String(result.branch)} already holds these files (${String(result.commit).slice(0, 12)}).`)
        else
          c.out.line(
            `Pushed ${String(result?.fileCount ?? '?')} files to ${String(result?.branch)} of ${String(result?.url)}: ${String(result?.commit).slice(0, 12)}.`,
          )
      })
    })
}
