// What a generation makes, as flags: the format and the optional parts (the API's GenerateOptions),
// the same on `ies generate` and `ies push`.
import { Option, type Command } from 'commander'
import { GENERATE_FORMATS as FORMATS, type GenerateOptions } from '@ies/api'

export { FORMATS }

/** Each optional part: its flag and the GenerateOptions member it sets. */
const PARTS: Array<{ flag: string; member: keyof GenerateOptions; text: string }> = [
  { flag: '--include-backend', member: 'includeBackend', text: 'write terraform/backend.tf (S3 state)' },
  { flag: '--include-chart', member: 'includeChart', text: 'add the chart values (charts/**)' },
  { flag: '--include-gitops', member: 'includeGitops', text: 'add the Argo CD definitions (gitops/**)' },
]

export type IncludeFlags = Partial<Record<keyof GenerateOptions, boolean>>

export function addFormatOption(command: Command, defaultText: string): Command {
  return command.addOption(new Option('--format <format>', `what to generate (default: ${defaultText})`).choices(FORMATS))
}

export function addIncludeOptions(command: Command, suffix = ''): Command {
  for (const part of PARTS) command.option(part.flag, `${part.text}${suffix}`)
  return command
}

/** The flags given, as GenerateOptions (every part named: false unless its flag was given). */
export function includeOptions(opts: IncludeFlags): GenerateOptions {
  return Object.fromEntries(PARTS.map((p) => [p.member, Boolean(opts[p.member])])) as GenerateOptions
}

/** Whether any `--include-*` flag was given. */
export function anyIncluded(opts: IncludeFlags): boolean {
  return PARTS.some((p) => opts[p.member])
}
