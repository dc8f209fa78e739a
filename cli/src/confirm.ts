// Asking before a destructive command: `--yes`, or a yes typed on a terminal.
import { UsageError } from './settings.ts'

/** `--yes`, or a yes on a terminal; without a terminal `--yes` is required. */
export async function confirmed(yes: boolean | undefined, question: string, doing = 'Deleting'): Promise<boolean> {
  if (yes) return true
  if (!process.stdin.isTTY) throw new UsageError(`${doing} needs --yes when not on a terminal`)
  const { confirm } = await import('@inquirer/prompts')
  return confirm({ message: question, default: false })
}
