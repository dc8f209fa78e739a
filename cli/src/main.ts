// `ies`: the IES command line. Global flags, the commands, and one place that turns every error into
// its message and exit code (EXIT in output.ts).
import { Command, CommanderError } from 'commander'
import { registerApply } from './commands/apply.ts'
import { registerApprovals } from './commands/approvals.ts'
import { registerAuth } from './commands/auth.ts'
import { registerCatalog } from './commands/catalog.ts'
import { registerCredentials } from './commands/credentials.ts'
import { registerEnv } from './commands/env.ts'
import { registerGenerate } from './commands/generate.ts'
import { registerJobs } from './commands/jobs.ts'
import { registerPush } from './commands/push.ts'
import { registerPolicy } from './commands/policy.ts'
import { registerPlan } from './commands/plan.ts'
import { registerTeams } from './commands/teams.ts'
import { registerUpgrade } from './commands/upgrade.ts'
import { Context, type GlobalOptions } from './context.ts'
import { ROOT_NOTES, unknownCommand, withExamples } from './help.ts'
import { EXIT, exitCodeOf, Output } from './output.ts'
import { VERSION } from './version.ts'

export function buildProgram(): { program: Command; context: () => Context } {
  const program = new Command('ies')
  let context: Context | undefined
  const ctx = () => (context ??= new Context(program.opts<GlobalOptions>()))
  program
    .description('IES, the Infrastructure Environment Service, from a terminal or a pipeline')
    .version(VERSION, '-V, --version', 'print the version of ies')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command')
    .option('--server <url>', 'IES server (env IES_SERVER, config file; default http://127.0.0.1:3000)')
    .option('--auth-url <url>', 'identity provider base URL, before /realms (env IES_AUTH_URL; default: what the server announces)')
    .option('--realm <realm>', 'identity provider realm (env IES_REALM; default: what the server announces)')
    .option('--json', 'machine-readable output (JSON on stdout, errors as JSON on stderr)')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .addHelpText('after', `\n${ROOT_NOTES}\n`)
  withExamples(program, [
    '# sign in, describe an environment in a file, generate its code',
    'ies login',
    'ies apply -f examples/envs/shop-dev.yaml',
    'ies generate shop-dev -o shop-dev.zip',
    '# push it to its Git repository, later bring every environment up to date',
    'ies push shop-dev',
    'ies upgrade',
  ])
  registerAuth(program, ctx)
  registerEnv(program, ctx)
  registerApply(program, ctx)
  registerPolicy(program, ctx)
  registerGenerate(program, ctx)
  registerPush(program, ctx)
  registerPlan(program, ctx)
  registerJobs(program, ctx)
  registerCatalog(program, ctx)
  registerCredentials(program, ctx)
  registerUpgrade(program, ctx)
  registerTeams(program, ctx)
  registerApprovals(program, ctx)
  return { program, context: ctx }
}

/** A reader that stops early (`ies env --help | head -1`) ends the output: exit quietly, like git and gh. */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(EXIT.OK)
      throw err
    })
  }
}

export async function main(argv: string[] = process.argv): Promise<number> {
  quietOnClosedPipe()
  const { program, context } = buildProgram()
  const unknown = unknownCommand(program, argv.slice(2))
  if (unknown) {
    const message = `${unknown.path} ${unknown.name}: no such command`
    const hint = `The commands of ${unknown.path}: ${unknown.known.join(', ')} (${unknown.path} --help)`
    if (argv.includes('--json'))
      process.stderr.write(`${JSON.stringify({ error: { code: 'USAGE', message: `${message}. ${hint}` } }, null, 2)}\n`)
    else process.stderr.write(`error: ${message}\n${hint}\n`)
    return EXIT.USAGE
  }
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
