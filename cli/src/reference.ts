// The command reference (docs/cli.md) made from the command definitions themselves: every command's
// description, usage, flags and examples, and the global flags and exit codes, after the
// hand-written guide (install, sign-in, environments as code). `npm run docs:cli`
// writes it; a test fails when the file differs from what the definitions make.
import type { Command, Option } from 'commander'
import { examplesOf } from './help.ts'
import { buildProgram } from './main.ts'
import { EXIT_MEANINGS } from './output.ts'

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function describe(option: Option): string {
  const extra = [
    option.argChoices && `one of: ${option.argChoices.join(', ')}`,
    option.defaultValue !== undefined && typeof option.defaultValue !== 'boolean' && `default: ${String(option.defaultValue)}`,
    option.mandatory && 'required',
  ].filter(Boolean)
  return cell(`${option.description}${extra.length ? ` (${extra.join('; ')})` : ''}`)
}

function optionsTable(options: readonly Option[]): string[] {
  const shown = options.filter((o) => o.long !== '--help' && o.long !== '--version')
  if (shown.length === 0) return []
  return ['| Flag | Description |', '| --- | --- |', ...shown.map((o) => `| \`${o.flags}\` | ${describe(o)} |`), '']
}

function section(command: Command, path: string[]): string[] {
  const name = path.join(' ')
  const examples = examplesOf(command)
  const lines = [`## ${name}`, '', command.description(), '', '```', `${name} ${command.usage()}`, '```', '']
  lines.push(...optionsTable(command.options))
  if (command.commands.length > 0) {
    lines.push('Commands: ' + command.commands.map((c) => `[\`${c.name()}\`](#${anchor([...path, c.name()])})`).join(', '), '')
  }
  if (examples.length > 0) lines.push('```sh', ...examples, '```', '')
  return lines
}

const anchor = (path: string[]) => path.join('-').toLowerCase()

function walk(command: Command, path: string[]): string[] {
  return command.commands.flatMap((sub) => {
    const at = [...path, sub.name()]
    return [...section(sub, at), ...walk(sub, at)]
  })
}

/** `guide`: the hand-written sections placed before the reference (cli/docs/guide.md). */
export function renderReference(guide = ''): string {
  const { program } = buildProgram()
  const lines = [
    '# `ies` command reference',
    '',
    '<!-- Made by `npm run docs:cli` from cli/docs/guide.md and the command definitions in cli/src; edit those, not this file. -->',
    '',
    `${program.description()}. Every command takes the global flags below; \`ies <command> --help\` shows the same text as this page.`,
    '',
    '```sh',
    ...examplesOf(program),
    '```',
    '',
    ...(guide ? [guide.trim(), ''] : []),
    '## Global flags',
    '',
    ...optionsTable(program.options),
    '## Exit codes',
    '',
    '| Code | Meaning |',
    '| --- | --- |',
    ...EXIT_MEANINGS.map(([code, meaning]) => `| ${code} | ${cell(meaning)} |`),
    '',
    ...walk(program, ['ies']),
  ]
  return `${lines.join('\n').trimEnd()}\n`
}
