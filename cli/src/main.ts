// `ies`: the IES command line. Global flags, the commands, and one place that turns every error into
// its message and exit code (0 ok, 1 failure, 2 usage, 3 conflict, 4 not found, 5 unauthorized).
import { Command, CommanderError } from 'commander'
import { registerApply } from './commands/apply.ts'
import { registerAuth } from './commands/auth.ts'
import { registerCatalog } from './commands/catalog.ts'
import { registerCredentials } from './commands/credentials.ts'
import { registerEnv } from './commands/env.ts'
import { registerGenerate } from './commands/generate.ts'
import { registerJobs } from './commands/jobs.ts'
import { registerPush } from './commands/push.ts'
import { Context, type GlobalOptions } from './context.ts'
import { EXIT, exitCodeOf, Output } from './output.ts'

export function buildProgram(): { program: Command; context: () => Context } {
  const program = new Command('ies')
  let context: Context | undefined
  const ctx = () => (context ??= new Context(program.opts<GlobalOptions>()))
  program
    .description('IES, the Infrastructure Environment Service, from a terminal or a pipeline')
    .version('0.1.0')
    .option('--server <url>', 'IES server (env IES_SERVER, config file; default http://127.0.0.1:3000)')
    .option('--auth-url <url>', 'identity provider base URL, before /realms (env IES_AUTH_URL; default: what the server announces)')
    .option('--realm <realm>', 'identity provider realm (env IES_REALM; default: what the server announces)')
    .option('--json', 'machine-readable output (JSON on stdout, errors as JSON on stderr)')
    .showHelpAfterError('(run ies --help for the commands)')
    .exitOverride()
    .addHelpText(
      'after',
      `
Pipelines: set IES_CLIENT_ID and IES_CLIENT_SECRET (client credentials; nothing is stored).
Terminals: ies login (device flow; the refresh token is kept in the config directory, mode 0600).
Exit codes: 0 ok, 1 failure, 2 usage, 3 conflict, 4 not found, 5 unauthorized.`,
    )
  registerAuth(program, ctx)
  registerEnv(program, ctx)
  registerApply(program, ctx)
  registerGenerate(program, ctx)
  registerPush(program, ctx)
  registerJobs(program, ctx)
  registerCatalog(program, ctx)
  registerCredentials(program, ctx)
  return { program, context: ctx }
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const { program, context } = buildProgram()
  try {
    await program.parseAsync(argv)
    return EXIT.OK
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has printed the message (or the help); help and --version are not failures.
      return err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? EXIT.OK : EXIT.USAGE
    }
    const out = safeOutput(program, context)
    out.error(err)
    return exitCodeOf(err)
  }
}

/** The command's output, or a plain one when the failure came before the context was made. */
function safeOutput(program: Command, context: () => Context): Output {
  try {
    return context().out
  } catch {
    return new Output(Boolean(program.opts<GlobalOptions>().json))
  }
}
