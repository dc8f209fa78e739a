// ies upgrade [--list] [--dry-run] [--strategy merge|branch] [--env <name>]... [--select <glob>]
// [--to <version>] [--wave <glob>]...: every pushed environment that is behind (the templates or its
// configuration changed since its last push), or those selected, is generated and pushed again, as
// the web UI's "update all": one push job each, each merging on its own. With --wave the server runs
// a rollout: wave after wave, each previewed and then pushed; it stops at the first conflict or
// failed push, and the command follows it, printing each environment's outcome.
import { Option, type Command } from 'commander'
import { PUSH_STRATEGIES } from '@ies/api'
import type { ApiClient, Job, RolloutView, Upgradable, UpgradeJobs } from '@ies/api'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import { addWaitOptions, jobFailure, waitForJob, waits, type WaitOptions } from '../job-wait.ts'
import { CommandFailed, EXIT, type Output } from '../output.ts'
import { printPushResult, STRATEGY_TEXT } from './push.ts'

type UpgradeOpts = WaitOptions & {
  list?: boolean
  dryRun?: boolean
  strategy?: 'merge' | 'branch'
  env?: string[]
  select?: string
  to?: string
  wave?: string[]
  plan?: boolean
  confirmDestroy?: string[]
}

/** `--confirm-destroy ENV=ADDRESS` values (repeatable) as the body's `confirmDestroy`: addresses by environment name. */
export function confirmationsOf(values: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const value of values) {
    const at = value.indexOf('=')
    if (at < 1 || at === value.length - 1)
      throw new CommandFailed(`--confirm-destroy takes ENVIRONMENT=ADDRESS, not "${value}"`, EXIT.USAGE, 'USAGE')
    ;(out[value.slice(0, at)] ??= []).push(value.slice(at + 1))
  }
  return out
}

export const behindText = (behind: Upgradable['behind']) =>
  [
    behind.templates &&
      (behind.commits === undefined ? 'templates' : `templates (${behind.commits} commit${behind.commits === 1 ? '' : 's'})`),
    behind.configuration && 'configuration',
  ]
    .filter(Boolean)
    .join(', ') || 'up to date'

const collect = (value: string, previous: string[] = []) => [...previous, value]

/** How often a followed rollout is read. */
const ROLLOUT_POLL_MS = 1000

function printBehind(out: Output, list: Upgradable[]): void {
  out.table(
    ['NAME', 'BEHIND', 'LAST PUSH', 'BRANCH', 'COMMIT'],
    list.map((u) => [u.name, behindText(u.behind), u.lastPush.pushedAt, u.lastPush.branch, u.lastPush.commit.slice(0, 12)]),
  )
  for (const u of list) {
    if (u.templatesPin) out.line(`${u.name}: pinned to templates ${u.templatesPin}`)
    for (const p of u.problems) out.line(`${u.name}: ${p.field}: ${p.reason} (skipped by an upgrade until fixed)`)
  }
}

/** Reads the rollout until it ends (or `timeout` seconds pass), printing each wave as its state changes. */
async function followRollout(client: ApiClient, out: Output, id: string, timeout?: number): Promise<RolloutView> {
  const deadline = timeout ? Date.now() + timeout * 1000 : Infinity
  const seen = new Map<number, string>()
  for (;;) {
    const rollout = await client.rollout(id)
    rollout.waves.forEach((w, i) => {
      if (seen.get(i) === w.status || w.status === 'pending') return
      seen.set(i, w.status)
      out.note(`wave ${i + 1} (${w.pattern}, ${w.environments.length} environments): ${w.status}`)
    })
    if (rollout.status !== 'running') return rollout
    if (Date.now() > deadline) {
      throw new CommandFailed(`the rollout ${id} is still running (ies upgrade --rollout ${id} follows it)`, EXIT.TIMEOUT, 'TIMEOUT')
    }
    await new Promise((resolve) => setTimeout(resolve, ROLLOUT_POLL_MS))
  }
}

function printRollout(out: Output, rollout: RolloutView): void {
  rollout.waves.forEach((w, i) => {
    out.line(out.colors.bold(`wave ${i + 1} (${w.pattern}): ${w.status}`))
    for (const e of w.environments) {
      const outcome = e.outcome ?? (w.status === 'pending' ? 'not started' : 'unfinished')
      const text = e.reason ? `${outcome}: ${e.reason}` : outcome
      out.line(`  ${e.name}: ${e.outcome === 'conflict' || e.outcome === 'failed' ? out.colors.red(text) : text}`)
      if (e.plan) out.line(`    plan: ${e.plan}`)
      for (const address of e.dataAtRisk ?? []) out.line(out.colors.red(`    would replace or destroy data: ${address}`))
    }
  })
  for (const s of rollout.skipped) out.line(`${s.name ?? s.environmentId}: skipped (${s.reason})`)
  if (rollout.stopped) out.line(out.colors.red(`stopped at wave ${rollout.stopped.wave + 1}: ${rollout.stopped.reason}`))
}

/** The rollout's failure: stopped (a conflict: exit 6, else 1), or environments skipped (1). */
function rolloutFailure(rollout: RolloutView): CommandFailed | null {
  if (rollout.stopped) {
    const conflict = rollout.waves[rollout.stopped.wave]?.environments.some((e) => e.outcome === 'conflict')
    return new CommandFailed(
      `the upgrade stopped at wave ${rollout.stopped.wave + 1}: ${rollout.stopped.reason}`,
      conflict ? EXIT.PUSH_CONFLICT : EXIT.FAILURE,
      'UPGRADE_STOPPED',
    )
  }
  if (rollout.skipped.length > 0) return new CommandFailed(`${rollout.skipped.length} skipped`, EXIT.FAILURE, 'UPGRADE_FAILED')
  return null
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
    .option('--env <name>', 'upgrade this environment, behind or not (repeatable)', collect)
    .option('--select <glob>', 'upgrade the environments whose names match, behind or not (e.g. "shop-*")')
    .option('--to <version>', 'the templates version to upgrade to (a commit, or a tag of a templates repository); default the newest')
    .option('--wave <glob>', 'upgrade in waves, in the order given (repeatable): each previewed, then pushed; stops at a conflict', collect)
    .option('--rollout <id>', 'follow a rollout started earlier')
    .option('--plan', 'plan each preview too (Terraform): its summary and the data-holding resources at risk')
    .option(
      '--confirm-destroy <env=address>',
      "let that environment's push replace or destroy this data-holding resource (repeatable; exactly its plan's addresses)",
      collect,
    )
  addWaitOptions(command, 'pushes')
  withExamples(command, [
    '# which environments are behind, and why',
    'ies upgrade --list',
    '# what the pushes would change, then push them',
    'ies upgrade --dry-run',
    'ies upgrade',
    '# each on a new branch, for review',
    'ies upgrade --strategy branch',
    '# dev first, then staging, then prod; stop at the first conflict',
    'ies upgrade --wave "*-dev" --wave "*-staging" --wave "*-prod"',
    '# pinned environments to a tagged templates version',
    'ies upgrade --select "shop-*" --to v2.1.0',
    '# plan every preview; let shop-dev lose its old queue',
    'ies upgrade --wave "*-dev" --plan --confirm-destroy "shop-dev=module.sqs.aws_sqs_queue.this"',
  ])
  command.action(async (opts: UpgradeOpts & { rollout?: string }) => {
    const c = ctx()
    const client = await c.client()
    const selected = opts.env !== undefined || opts.select !== undefined
    const body = {
      ...(opts.dryRun && { dryRun: true }),
      ...(opts.strategy && { strategy: opts.strategy }),
      ...(opts.env && { names: opts.env }),
      ...(opts.select && { pattern: opts.select }),
      ...(opts.to && { to: opts.to }),
      ...(opts.wave && { waves: opts.wave }),
      ...(opts.plan && { plan: true }),
      ...(opts.confirmDestroy && { confirmDestroy: confirmationsOf(opts.confirmDestroy) }),
    }
    if (opts.rollout || opts.wave) {
      const id = opts.rollout ?? (await client.upgrade(body)).rolloutId
      if (!waits(opts)) {
        c.out.result({ rolloutId: id }, () => c.out.line(`rollout ${id} started (ies upgrade --rollout ${id} follows it)`))
        return
      }
      const rollout = await followRollout(client, c.out, id, opts.timeout)
      c.out.result(rollout, () => printRollout(c.out, rollout))
      const failure = rolloutFailure(rollout)
      if (failure) throw failure
      return
    }
    const behind = await client.upgrades()
    const names = new Map(behind.map((u) => [u.id, u.name]))
    if (opts.list || (behind.length === 0 && !selected)) {
      c.out.result(behind, () => (behind.length === 0 ? c.out.line('Every pushed environment is up to date.') : printBehind(c.out, behind)))
      return
    }
    const queued = await client.upgrade(body)
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
