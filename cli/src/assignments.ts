// Values given on the command line rather than in a file: `--set path=value` (a YAML value),
// `--set-env path=IES_VARIABLE` (an environment variable's text) and `--set-file path=file` (a file's
// text). The last two keep a secret such as the deploy key out of committed files, the shell history
// and the process list: `--set-env gitRepository.deployKey=IES_DEPLOY_KEY`.
import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { parse } from 'yaml'
import { UsageError } from './settings.ts'

export interface Assignments {
  set?: string[]
  setEnv?: string[]
  setFile?: string[]
}

const collect = (value: string, previous: string[] = []) => [...previous, value]

/** Only variables named IES_*: a file or flag cannot read any other variable of the caller's environment. */
const VARIABLE = /^IES_[A-Z0-9_]+$/

export function addAssignmentOptions(command: Command): Command {
  return command
    .option('--set <path=value>', 'set a field to a YAML value (repeatable), e.g. services.vpc.enabled=true', collect)
    .option(
      '--set-env <path=IES_VARIABLE>',
      'set a field to the text of an IES_* environment variable (repeatable), e.g. gitRepository.deployKey=IES_DEPLOY_KEY',
      collect,
    )
    .option(
      '--set-file <path=file>',
      'set a field to the text of a file, without its final newline (repeatable), e.g. gitRepository.deployKey=./deploy-key',
      collect,
    )
}

function split(flag: string, assignment: string): { keys: string[]; value: string } {
  const eq = assignment.indexOf('=')
  if (eq < 1) throw new UsageError(`${flag} ${assignment}: expected path=value`)
  const keys = assignment.slice(0, eq).split('.')
  if (keys.some((k) => k === '' || k === '__proto__' || k === 'constructor' || k === 'prototype')) {
    throw new UsageError(`${flag} ${assignment.slice(0, eq)}: not a valid path`)
  }
  return { keys, value: assignment.slice(eq + 1) }
}

function setAt(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target
  for (const key of keys.slice(0, -1)) {
    const next = node[key]
    node = node[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as Record<string, unknown>) : {}
  }
  node[keys[keys.length - 1]!] = value
}

/** `--set services.vpc.cidr=10.1.0.0/16`: a dotted path and a YAML value (`true`, `3`, `null`, text). */
export function setPath(target: Record<string, unknown>, assignment: string): Record<string, unknown> {
  const { keys, value } = split('--set', assignment)
  let parsed: unknown
  try {
    parsed = parse(value)
  } catch {
    parsed = value
  }
  setAt(target, keys, parsed ?? null)
  return target
}

/** Every `--set`, `--set-env` and `--set-file` of `opts`, in that order, into `target`. */
export function applyAssignments(target: Record<string, unknown>, opts: Assignments, env: NodeJS.ProcessEnv = process.env): void {
  for (const assignment of opts.set ?? []) setPath(target, assignment)
  for (const assignment of opts.setEnv ?? []) {
    const { keys, value: name } = split('--set-env', assignment)
    if (!VARIABLE.test(name)) throw new UsageError(`--set-env ${keys.join('.')}=${name}: the variable must be named IES_*`)
    const text = env[name]
    if (text === undefined || text === '') throw new UsageError(`--set-env ${keys.join('.')}: the variable ${name} is not set`)
    setAt(target, keys, text)
  }
  for (const assignment of opts.setFile ?? []) {
    const { keys, value: file } = split('--set-file', assignment)
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message
      throw new UsageError(`--set-file ${keys.join('.')}: ${file}: ${reason}`)
    }
    setAt(target, keys, text.replace(/\r?\n$/, ''))
  }
}
