// ies apply -f <file or folder> [--set* path=value] [--dry-run]
import type { Command } from 'commander'
import { execute, loadDesired, plan, publicEntry, type Desired, type PlannedEnvironment } from '../apply.ts'
import { addAssignmentOptions, applyAssignments, type Assignments } from '../assignments.ts'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import type { Output } from '../output.ts'

const show = (value: unknown) => (value === undefined ? '(unset)' : JSON.stringify(value))

function printEntry(out: Output, p: PlannedEnvironment, dryRun: boolean): void {
  const c = out.colors
  const entry = publicEntry(p)
  const verb = { create: dryRun ? 'create' : 'created', update: dryRun ? 'update' : 'updated', unchanged: 'unchanged' }[p.action]
  const mark = { create: c.green('+'), update: c.yellow('~'), unchanged: c.dim('=') }[p.action]
  out.line(`${mark} ${verb.padEnd(9)} ${p.name}${c.dim(`  (${p.file})`)}`)
  if (p.action === 'unchanged') return
  for (const change of entry.changes) {
    if (p.action === 'create') out.line(`    ${change.path}: ${show(change.to)}`)
    else if (!('to' in change)) out.line(`    ${change.path}: ${show(change.from)} ${c.red('-> (removed)')}`)
    else out.line(`    ${change.path}: ${show(change.from)} -> ${show(change.to)}`)
  }
}

/** A deploy key written in a file is a secret in version control: say so, and how to give it instead. */
function warnCommittedKeys(out: Output, desired: Desired[]): void {
  for (const d of desired) {
    const git = d.config.gitRepository as Record<string, unknown> | undefined
    if (typeof git?.deployKey === 'string')
      out.note(
        `Warning: ${d.file} holds a deploy key; keep it out of version control and give it with --set-env gitRepository.deployKey=IES_DEPLOY_KEY`,
      )
  }
}

const EXAMPLES = [
  '# annotated environment files: examples/envs/ in the IES repository',
  'ies apply -f examples/envs/shop-dev.yaml --dry-run',
  'ies apply -f examples/envs/',
  '# the deploy key from a variable (never from a committed file)',
  'IES_DEPLOY_KEY=... ies apply -f shop-prod.yaml --set-env gitRepository.deployKey=IES_DEPLOY_KEY',
  'ies apply -f shop-prod.yaml --set-file gitRepository.deployKey=./deploy-key',
  "# a team's environments (you, or the pipeline's client, an editor of the team)",
  'ies apply -f envs/ --team platform',
]

export function registerApply(program: Command, ctx: () => Context): void {
  const command = program
    .command('apply')
    .description(
      'Create or update environments from YAML files, by name (idempotent); prints what changed. Annotated examples: examples/envs/',
    )
    .requiredOption('-f, --file <file-or-folder...>', 'YAML/JSON files, or folders of them (several documents per file with ---)')
  addAssignmentOptions(command)
    .option(
      '--team <team>',
      "the team of every environment the files describe that names none (`team:` in a file): a team's are matched by team and name",
    )
    .option('--dry-run', 'print the plan and change nothing')
  command.addHelpText(
    'after',
    '\n--set, --set-env and --set-file apply to every environment the files describe (give one file to set one environment).\n',
  )
  withExamples(command, EXAMPLES).action(async (opts: Assignments & { file: string[]; dryRun?: boolean; team?: string }) => {
    const c = ctx()
    const desired = loadDesired(opts.file)
    warnCommittedKeys(c.out, desired)
    for (const d of desired) {
      if (opts.team !== undefined && d.config.team === undefined) d.config.team = opts.team
      applyAssignments(d.config, opts)
    }
    const client = await c.client()
    const planned = await plan(client, desired)
    const dryRun = Boolean(opts.dryRun)
    const count = (action: PlannedEnvironment['action']) => planned.filter((p) => p.action === action).length
    const summary = () => ({
      dryRun,
      changed: planned.some((p) => p.action !== 'unchanged'),
      created: count('create'),
      updated: count('update'),
      unchanged: count('unchanged'),
      environments: planned.map(publicEntry),
    })
    if (dryRun) {
      c.out.result(summary(), () => {
        for (const p of planned) printEntry(c.out, p, true)
        c.out.line(
          `Plan: ${count('create')} to create, ${count('update')} to update, ${count('unchanged')} unchanged (dry run: nothing changed).`,
        )
      })
      return
    }
    await execute(client, planned, (p) => {
      if (!c.out.json) printEntry(c.out, p, false)
    })
    c.out.result(summary(), () =>
      c.out.line(
        summary().changed
          ? `Applied: ${count('create')} created, ${count('update')} updated, ${count('unchanged')} unchanged.`
          : `No changes: ${count('unchanged')} environment${count('unchanged') === 1 ? '' : 's'} already as described.`,
      ),
    )
  })
}
