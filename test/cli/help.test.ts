// The command line's help and reference: every flag described and every command with examples, an
// unknown command named as such (exit 2, even with --help), a reader that stops early ends `ies`
// quietly, and docs/cli.md is what the command definitions make (`npm run docs:cli` rewrites it).
import { spawn } from 'node:child_process'
import t from 'tap'
import type { Command } from 'commander'
import { examplesOf } from '../../cli/src/help.ts'
import { buildProgram } from '../../cli/src/main.ts'
import { referenceIsCurrent } from '../../cli/scripts/docs.ts'
import { IES_BIN } from './helpers.ts'

const ies = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [IES_BIN, ...args], { env: { PATH: process.env.PATH ?? '' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })

const commands = (command: Command, path = 'ies'): Array<[string, Command]> => [
  [path, command],
  ...command.commands.flatMap((sub) => commands(sub, `${path} ${sub.name()}`)),
]

t.test('every flag has a description, every command examples', async (t) => {
  const all = commands(buildProgram().program)
  t.ok(all.length > 25, `${all.length} commands`)
  for (const [path, command] of all) {
    for (const option of command.options) t.ok(option.description, `${path} ${option.flags}: described`)
    t.ok(examplesOf(command).length > 0, `${path}: examples`)
    t.ok(command.description(), `${path}: a description`)
  }
})

t.test('help, unknown commands and exit codes', async (t) => {
  const upgrade = await ies(['upgrade', '--help'])
  t.equal(upgrade.code, 0)
  t.match(upgrade.stdout, /^Usage: ies upgrade \[options\]/)
  t.match(upgrade.stdout, /\nExamples:\n {2}# /)
  for (const args of [['nope', '--help'], ['nope'], ['env', 'nope', '--help'], ['--json', 'nope']]) {
    const run = await ies(args)
    t.equal(run.code, 2, `ies ${args.join(' ')}: exit 2`)
    t.match(run.stderr, /: no such command/)
    t.equal(run.stdout, '', 'and no help on stdout')
  }
  const root = await ies(['--help'])
  t.match(root.stdout, /Exit codes:\n {2}0 {2}done/)
  t.match(root.stdout, /^ {2}7 {2}a job was still running/m)
  const nested = await ies(['--server', 'http://127.0.0.1:9', 'env', 'list', '--help'])
  t.equal(nested.code, 0, 'a global flag with a value before the command')
  t.match(nested.stdout, /^Usage: ies env list/)
  t.equal((await ies(['help', 'env'])).code, 0, 'ies help <command>')
})

t.test('a reader that stops early: a quiet exit, no stack trace', async (t) => {
  // The reading end is closed before ies writes its help: the write fails with EPIPE.
  const child = spawn(process.execPath, [IES_BIN, 'env', '--help'], { env: { PATH: process.env.PATH ?? '' } })
  child.stdout.destroy()
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  t.equal(code, 0)
  t.equal(stderr, '', 'nothing on stderr')
})

t.test('docs/cli.md is made from the command definitions', async (t) => {
  t.ok(await referenceIsCurrent(), 'docs/cli.md is current (npm run docs:cli rewrites it)')
})
