// ies upgrade [--list] [--dry-run] [--strategy merge|branch]: every pushed environment that is behind
// (the templates or its configuration changed since its last push) is generated and pushed again, as
// the web UI's "update all": one push job each, each merging on its own.
import { Option, type Command } from 'commander'
import { PUSH_STRATEGIES } from '@ies/api'
import type { ApiClient, Job, Upgradable, UpgradeJobs } from '@ies/api'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import { addWaitOptions, jobFailure, waitForJob, waits, type WaitOptions } from '../job-wait.ts'
import { CommandFailed, EXIT, type Output } from '../output.ts'
import { printPushResult, STRATEGY_TEXT } from './push.ts'

type UpgradeOpts = WaitOptions & { list?: boolean; dryRun?: boolean; strategy?: 'merge' | 'branch' }

export const behindText = (behind: Upgradable['behind']) =>
  [behind.templates && 'templates', behind.configuration && 'configuration'].filter(Boolean).join(', ') || 'up to date'

function printBehind(out: Output, list: Upgradable[]): void {
  out.table(
    ['NAME', 'BEHIND', 'LAST PUSH', 'BRANCH', 'COMMIT'],
    list.map((u) => [u.name, behindText(u.behind), u.lastPush.pushedAt, u.lastPush.branch, u.lastPush.commit.slice(0, 12)]),
  )
}

interface Outcome {
  environmentId: string
  name: string
  jobId: string
  job?: Job
  error?: CommandFailed
}

/** Waits for each job in turn; a failed or timed-out job is recorded, the others are still waited for. */
async function waitAll(client: ApiClient, out: Output, queued: UpgradeJobs, names: Map<string, string>, timeout?: number) {
  const outcomes: Outcome[] = []
  const deadline = timeout ? Date.now() + timeout * 1000 : undefined
  for (const { environmentId, jobId } of queued.jobs) {
    const outcome: Outcome = { environmentId, jobId, name: names.get(environmentId) ?? environmentId }
    try {
      const left = deadline === undefined ? undefined : Math.max(0.001, (deadline - Date.now()) / 1000)
      outcome.job = await waitForJob(client, out, jobId, { timeoutSeconds: left })
      if (outcome.job.status === 'failed') outcome.error = jobFailure(outcome.job)
    } catch (err) {
      if (!(err instanceof CommandFailed)) throw err
      outcome.error = err
    }
    outcomes.push(outcome)
  }
  return outcomes
}

/**
 * Whether every environment that was behind was upgraded; if not, the exit code: any failure or
 * skipped environment 1, else a timeout 7, else a push conflict 6.
 */
function failureOf(outcomes: Outcome[], skipped: UpgradeJobs['skipped']): CommandFailed | null {
  const failed = outcomes.filter((o) => o.error)
  if (failed.length === 0 && skipped.length === 0) return null
  const codes = new Set(failed.map((o) => o.error!.exitCode))
  if (skipped.length > 0) codes.add(EXIT.FAILURE)
  const exitCode = [EXIT.FAILURE, EXIT.TIMEOUT, EXIT.PUSH_CONFLICT].find((code) => codes.has(code)) ?? EXIT.FAILURE
  const names = failed.map((o) => o.name).join(', ')
  const parts = [
    failed.length > 0 && `${failed.length} of ${outcomes.length} upgrades did not succeed (${names})`,
    skipped.length > 0 && `${skipped.length} skipped`,
  ]
  return new CommandFailed(`${parts.filter(Boolean).join('; ')}`, exitCode, 'UPGRADE_FAILED')
}

function printOutcomes(out: Output, outcomes: Outcome[], skipped: UpgradeJobs['skipped'], names: Map<string, string>): void {
  for (const o of outcomes) {
    out.line(out.colors.bold(`${o.name}:`))
    if (o.error) out.line(`  ${out.colors.red(o.error.code)}: ${o.error.message}`)
    else printPushResult(out, o.job!)
  }
  for (const s of skipped) out.line(`${names.get(s.environmentId) ?? s.environmentId}: skipped (${s.reason})`)
}

export function registerUpgrade(program: Command, ctx: () => Context): void {
  const command = program
    .command('upgrade')
    .description('Push again every environment that is behind its templates or its configuration (as "update all" in the web UI)')
    .option('--list', 'only list the environments that are behind; nothing is queued')
    .option('--dry-run', 'show what each push would change; nothing is pushed')
    .addOption(new Option('--strategy <strategy>', STRATEGY_TEXT).choices(PUSH_STRATEGIES))
  addWaitOptions(command, 'pushes')
  withExamples(command, [
    '# which environments are behind, and why',
    'ies upgrade --list',
    '# what the pushes would change, then push them',
    'ies upgrade --dry-run',
    'ies upgrade',
    '# each on a new branch, for review',
    'ies upgrade --strategy branch',
  ])
  command.action(async (opts: UpgradeOpts) => {
    const c = ctx()
    const client = await c.client()
    const behind = await client.upgrades()
    const names = new Map(behind.map((u) => [u.id, u.name]))
    if (opts.list || behind.length === 0) {
      c.out.result(behind, () => (behind.length === 0 ? c.out.line('Every pushed environment is up to date.') : printBehind(c.out, behind)))
      return
    }
    const queued = await client.upgrade({ ...(opts.dryRun && { dryRun: true }), ...(opts.strategy && { strategy: opts.strategy }) })
    if (!waits(opts)) {
      const jobs = queued.jobs.map((j) => ({ ...j, name: names.get(j.environmentId) }))
      c.out.result({ ...queued, jobs }, () => {
        c.out.table(
          ['NAME', 'JOB'],
          jobs.map((j) => [j.name ?? j.environmentId, j.jobId]),
        )
        for (const s of queued.skipped) c.out.line(`${names.get(s.environmentId) ?? s.environmentId}: skipped (${s.reason})`)
      })
      return
    }
    const outcomes = await waitAll(client, c.out, queued, names, opts.timeout)
    const json = {
      dryRun: Boolean(opts.dryRun),
      environments: outcomes.map((o) => ({
        id: o.environmentId,
        name: o.name,
        jobId: o.jobId,
        status: o.job?.status ?? 'unfinished',
        ...(o.job?.result && { result: o.job.result }),
        ...(o.error && { error: { code: o.error.code, message: o.error.message } }),
      })),
      skipped: queued.skipped,
    }
    c.out.result(json, () => printOutcomes(c.out, outcomes, queued.skipped, names))
    const failure = failureOf(outcomes, queued.skipped)
    if (failure) throw failure
  })
}
