// A job's error as stored and served (`{ code, message, details? }`): findings of the processor for a
// refused generation, a clear sentence for a refused push, nothing internal otherwise. Any secret
// the job held is cut out of the message. What the operator needs to see (the original error: its
// message, code, system-call fields and cause chain) is returned beside it, redacted the same way, to
// be logged: for an unexpected failure and for a failure of something outside (a Git server).
import { OPEN_CODES } from '@ies/api/errors'
import { ProcessorError } from '@ies/processor-lib'
import { DESTINATION_REFUSED, DestinationError } from '../push/destination.ts'
import { GenerationError } from '../generation/generation.ts'
import type { JobError } from './store.ts'
import { redact } from '../../core/redaction.ts'
import { JobFailure } from '../../core/job-failure.ts'

/** The fields of an error an operator reads (Node's system errors, isomorphic-git's `data`), as a plain object. */
export interface ErrorDescription {
  name?: string
  message: string
  code?: string | number
  errno?: number
  syscall?: string
  address?: string
  port?: number
  hostname?: string
  caller?: string
  statusCode?: number
  statusMessage?: string
  response?: string
  stack?: string
  cause?: ErrorDescription
  errors?: ErrorDescription[]
}

const MAX_DEPTH = 5
const MAX_TEXT = 2000

/** The error, its cause chain and an AggregateError's errors, with every string redacted (for the log). */
export function describeError(
  err: unknown,
  secrets: readonly (string | null | undefined)[],
  opts: { stack?: boolean } = {},
  depth = 0,
): ErrorDescription {
  const clean = (s: string) => redact(s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s, secrets)
  if (!err || typeof err !== 'object') return { message: clean(String(err)) }
  const e = err as Record<string, unknown>
  const out: ErrorDescription = { message: clean(typeof e.message === 'string' ? e.message : String(err)) }
  if (typeof e.name === 'string') out.name = clean(e.name)
  if (typeof e.code === 'string') out.code = clean(e.code)
  else if (typeof e.code === 'number') out.code = e.code
  if (typeof e.errno === 'number') out.errno = e.errno
  for (const key of ['syscall', 'address', 'hostname', 'caller'] as const)
    if (typeof e[key] === 'string') out[key] = clean(e[key] as string)
  if (typeof e.port === 'number') out.port = e.port
  const data = e.data as Record<string, unknown> | undefined
  if (data && typeof data === 'object') {
    if (typeof data.statusCode === 'number') out.statusCode = data.statusCode
    if (typeof data.statusMessage === 'string') out.statusMessage = clean(data.statusMessage)
    if (typeof data.response === 'string' && data.response) out.response = clean(data.response)
  }
  if (opts.stack && depth === 0 && typeof e.stack === 'string') out.stack = clean(e.stack)
  if (depth < MAX_DEPTH) {
    if (e.cause !== undefined) out.cause = describeError(e.cause, secrets, opts, depth + 1)
    if (Array.isArray(e.errors) && e.errors.length > 0)
      out.errors = e.errors.slice(0, 10).map((x) => describeError(x, secrets, opts, depth + 1))
  }
  return out
}

/**
 * The stored error, whether it was unexpected, and the redacted original error to log when there is
 * one to show (unexpected: at error level; a failure with a cause, or an isomorphic-git error: at warn level).
 */
export function jobErrorOf(
  err: unknown,
  secrets: readonly (string | null | undefined)[] = [],
): { error: JobError; unexpected: boolean; cause?: ErrorDescription } {
  const clean = (s: string) => redact(s, secrets)
  if (err instanceof JobFailure || err instanceof GenerationError) {
    const error = { code: err.code, message: clean(err.message), ...(err.details !== undefined && { details: err.details }) }
    return { error, unexpected: false, ...(err.cause !== undefined && { cause: describeError(err.cause, secrets) }) }
  }
  if (err instanceof ProcessorError) {
    return {
      error: { code: err.code, message: clean(err.message), ...(err.details !== undefined && { details: err.details }) },
      unexpected: false,
    }
  }
  if (err instanceof DestinationError) return { error: { code: DESTINATION_REFUSED, message: clean(err.message) }, unexpected: false }
  const gitCode = (err as { code?: unknown })?.code
  if (typeof gitCode === 'string' && /Error$/.test(gitCode)) {
    // isomorphic-git's other errors (UrlParseError, SmartHttpError, ...); the push maps its own (push.ts).
    return {
      error: { code: 'GIT_FAILED', message: clean(`${gitCode}: ${(err as Error).message}`) },
      unexpected: false,
      cause: describeError(err, secrets),
    }
  }
  return {
    error: { code: OPEN_CODES.internal, message: 'The job failed unexpectedly' },
    unexpected: true,
    cause: describeError(err, secrets, { stack: true }),
  }
}
