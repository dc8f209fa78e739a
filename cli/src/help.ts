// Help that reads like `gh`: each command's examples (shown after its help and in docs/cli.md), the
// root help's notes, and an unknown command named as such (exit 2) rather than answered with the
// root help.
import type { Command, Option } from 'commander'
import { EXIT_MEANINGS } from './output.ts'

const EXAMPLES = new WeakMap<Command, string[]>()

/** Attaches examples (`#` lines are comments) to a command's help and to the reference. */
export function withExamples(command: Command, examples: string[]): Command {
  EXAMPLES.set(command, examples)
  return command.addHelpText('after', `\nExamples:\n${examples.map((line) => `  ${line}`).join('\n')}\n`)
}

export function examplesOf(command: Command): string[] {
  return EXAMPLES.get(command) ?? []
}

export const ROOT_NOTES = `Sign-in:
  Pipelines set IES_CLIENT_ID and IES_CLIENT_SECRET (client credentials; nothing is stored).
  Terminals run ies login (device flow; the refresh token is kept in the config directory, mode 0600).

Exit codes:
${EXIT_MEANINGS.map(([code, meaning]) => `  ${code}  ${meaning}`).join('\n')}`

/** Whether an option takes a value (so the word after it is not a command). */
const takesValue = (option: Option) => option.required || option.optional

/**
 * The first word of `args` (argv without node and the script) that names no command where a command
 * is expected, with the commands it was looked up in; null when every command word is known.
 */
export function unknownCommand(program: Command, args: string[]): { path: string; name: string; known: string[] } | null {
  let command = program
  const chain: Command[] = [program]
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') return null
    if (arg.startsWith('-')) {
      const flag = arg.split('=')[0]
      const option = chain.flatMap((c) => c.options).find((o) => o.long === flag || o.short === flag)
      if (option && takesValue(option) && !arg.includes('=')) i++
      continue
    }
    if (command.commands.length === 0) return null
    if (arg === 'help') return null
    const sub = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg))
    if (!sub) {
      const path = chain.map((c) => c.name()).join(' ')
      return { path, name: arg, known: command.commands.map((c) => c.name()) }
    }
    command = sub
    chain.push(sub)
  }
  return null
}
