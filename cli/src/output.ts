// How the command line speaks: tables and short lines for people (colour only on a terminal), JSON
// for machines (`--json`), errors with the API's code, message and fields, and the exit codes (EXIT).
import Table from 'cli-table3'
import pc from 'picocolors'
import { ApiError } from '@ies/api'
import { NotLoggedInError } from './auth/session.ts'
import { UsageError } from './settings.ts'

export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  CONFLICT: 3,
  NOT_FOUND: 4,
  UNAUTHORIZED: 5,
  PUSH_CONFLICT: 6,
  TIMEOUT: 7,
  DATA_AT_RISK: 8,
  DRIFT: 9,
} as const

/** What each exit code means, for the root help and the reference (docs/cli.md). */
export const EXIT_MEANINGS: Array<[number, string]> = [
  [EXIT.OK, 'done (also: nothing to change)'],
  [EXIT.FAILURE, 'failed (a refused request, a failed job, an unreachable server)'],
  [EXIT.USAGE, 'wrong usage: an unknown command or flag, a missing argument, an unreadable file'],
  [EXIT.CONFLICT, 'the server refused the request as conflicting with the current state (HTTP 409)'],
  [EXIT.NOT_FOUND, 'no environment, credential or job by that name or id'],
  [EXIT.UNAUTHORIZED, 'not signed in, or not allowed'],
  [EXIT.PUSH_CONFLICT, 'a push (or upgrade) with strategy merge met changes on the branch that touch the same lines'],
  [EXIT.TIMEOUT, 'a job was still running when the wait (--timeout) ran out; it goes on on the server'],
  [EXIT.DATA_AT_RISK, 'the plan would replace or destroy resources that hold data (a push was refused: --confirm-destroy)'],
  [EXIT.DRIFT, 'ies drift found resources that differ from the state'],
]

/** A failure the command already explained (e.g. a job that failed), with its exit code. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.FAILURE,
    readonly code = 'FAILED',
    readonly details?: unknown,
  ) {
    super(message)
    this.name = 'CommandFailed'
  }
}

/** A name or id that matches nothing (exit 4), in the API's words. */
export function notFound(what: string, nameOrId: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `${what} not found: ${nameOrId}`)
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return EXIT.USAGE
  if (err instanceof NotLoggedInError) return EXIT.UNAUTHORIZED
  if (err instanceof CommandFailed) return err.exitCode
  if (err instanceof ApiError) {
    if (err.status === 401 || err.status === 403) return EXIT.UNAUTHORIZED
    if (err.status === 404) return EXIT.NOT_FOUND
    if (err.status === 409) return EXIT.CONFLICT
  }
  return EXIT.FAILURE
}

export interface OutputStreams {
  stdout: NodeJS.WriteStream | NodeJS.WritableStream
  stderr: NodeJS.WriteStream | NodeJS.WritableStream
}

const isTty = (stream: unknown) => Boolean((stream as NodeJS.WriteStream).isTTY)

export class Output {
  readonly colors: ReturnType<typeof pc.createColors>
  /** Progress lines on stderr: only on a terminal and never with --json. */
  readonly interactive: boolean

  constructor(
    readonly json: boolean,
    private readonly streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr },
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const colour = isTty(streams.stdout) && !env.NO_COLOR && env.TERM !== 'dumb'
    this.colors = pc.createColors(colour)
    this.interactive = !json && isTty(streams.stderr)
  }

  /** A line for people on stdout (nothing in --json mode). */
  line(text = ''): void {
    if (!this.json) this.streams.stdout.write(`${text}\n`)
  }

  /** A note on stderr (kept out of stdout, so pipes get only the result). */
  note(text: string): void {
    this.streams.stderr.write(`${text}\n`)
  }

  /** Raw text on stdout in both modes (YAML of an export, a diff). */
  text(text: string): void {
    this.streams.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** The machine answer in --json mode; `human` otherwise. */
  result(value: unknown, human: () => void): void {
    if (this.json) this.streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
    else human()
  }

  /** A list: as JSON in --json mode; else `empty` when it has no item, or a table of one row per item. */
  list<T>(items: T[], empty: string, head: string[], row: (item: T) => Array<string | number | boolean | null | undefined>): void {
    this.result(items, () => (items.length === 0 ? this.line(empty) : this.table(head, items.map(row))))
  }

  /** A borderless table (like `gh` and `kubectl`); headers bold on a terminal. */
  table(head: string[], rows: Array<Array<string | number | boolean | null | undefined>>): void {
    const table = new Table({
      head: head.map((h) => this.colors.bold(h)),
      chars: {
        top: '',
        'top-mid': '',
        'top-left': '',
        'top-right': '',
        bottom: '',
        'bottom-mid': '',
        'bottom-left': '',
        'bottom-right': '',
        left: '',
        'left-mid': '',
        mid: '',
        'mid-mid': '',
        right: '',
        'right-mid': '',
        middle: '  ',
      },
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    })
    for (const row of rows) table.push(row.map((cell) => (cell === null || cell === undefined ? '' : String(cell))))
    this.line(table.toString().replace(/[ \t]+$/gm, ''))
  }

  /** Prints an error as the API gave it (code, message, the fields that are wrong). */
  error(err: unknown): void {
    const c = this.colors
    if (err instanceof ApiError || err instanceof CommandFailed) {
      const code = err.code
      const details = err instanceof ApiError ? err.details : err.details
      if (this.json) {
        this.streams.stderr.write(
          `${JSON.stringify({ error: { code, message: err.message, ...(details !== undefined && { details }) } }, null, 2)}\n`,
        )
        return
      }
      this.note(`${c.red('Error')} ${code}: ${err.message}`)
      if (Array.isArray(details)) {
        for (const d of details as Array<Record<string, unknown>>) {
          if (typeof d?.field === 'string') this.note(`  ${c.bold(d.field)}: ${String(d.message)}`)
          else if (typeof d?.file === 'string') this.note(`  ${d.file}:${String(d.line)} ${String(d.code)}: ${String(d.message)}`)
        }
      } else if (details && typeof details === 'object') {
        for (const [k, v] of Object.entries(details)) this.note(`  ${c.bold(k)}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      }
      if (err instanceof ApiError && err.requestId) this.note(c.dim(`  request id ${err.requestId}`))
      return
    }
    const message = (err as Error)?.message ?? String(err)
    const code = err instanceof UsageError ? 'USAGE' : err instanceof NotLoggedInError ? 'UNAUTHORIZED' : 'ERROR'
    if (this.json) this.streams.stderr.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`)
    else this.note(`${c.red('Error:')} ${message}`)
  }
}
