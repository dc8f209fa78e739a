// What the CLI says about an environment's configuration against the current templates: the values
// the catalog refuses (a stranded environment: `ies env status`, `ies env get`) and what the
// templates' migrations change in it (a push, or its dry run).
import type { ConfigurationChange, Environment } from '@ies/api'
import type { Output } from './output.ts'

export type ConfigurationProblem = NonNullable<Environment['problems']>[number]

/** "Stranded" and each refused field with its reason; nothing when there is none. */
export function printProblems(out: Output, problems: readonly ConfigurationProblem[] | undefined, name: string): void {
  if (!problems?.length) return
  const n = problems.length
  out.line(out.colors.yellow(`Stranded:  the current templates refuse ${n} stored value${n === 1 ? '' : 's'}:`))
  for (const p of problems) out.line(`  ${out.colors.bold(p.field)}: ${p.message}`)
  out.line(`  change ${n === 1 ? 'it' : 'them'} (ies env update ${name} --set <field>=<value>), or push to apply the templates' migrations`)
}

const shown = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v))

/** The migrations a push applies and each field before -> after; nothing when there is none. */
export function printConfigurationChange(out: Output, change: ConfigurationChange | undefined, dryRun: boolean): void {
  if (!change?.migrations.length) return
  out.line(`${dryRun ? 'Would apply' : 'Applied'} the templates' migrations ${change.migrations.join(', ')} to the configuration:`)
  for (const c of change.changes) out.line(`  ${out.colors.bold(c.field)}: ${shown(c.before)} -> ${shown(c.after)}`)
}
