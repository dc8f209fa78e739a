// A job's error as stored and served (`{ code, message, details? }`): findings of the processor for a
// refused generation, a clear sentence for a refused push, nothing internal otherwise. Any secret
// the job held is cut out of the message.
import { ProcessorError } from '@ies/processor-lib'
import { DestinationError } from './destination.ts'
import { GenerationError } from './generation.ts'
import type { JobError } from './store.ts'

/** A failure the job reports as it is (its code and message are meant for the user). */
export class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
  }
}

export function redact(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]')
  return out
}

/** The stored error and whether it was unexpected (then it is logged, by message only). */
export function jobErrorOf(err: unknown, secrets: readonly (string | null | undefined)[] = []): { error: JobError; unexpected: boolean } {
  const clean = (s: string) => redact(s, secrets)
  if (err instanceof JobFailure || err instanceof GenerationError) {
    return { error: { code: err.code, message: clean(err.message), ...(err.details !== undefined && { details: err.details }) }, unexpected: false }
  }
  if (err instanceof ProcessorError) {
    return { error: { code: err.code, message: clean(err.message), ...(err.details !== undefined && { details: err.details }) }, unexpected: false }
  }
  if (err instanceof DestinationError) return { error: { code: 'PUSH_DESTINATION_REFUSED', message: clean(err.message) }, unexpected: false }
  const gitCode = (err as { code?: unknown })?.code
  if (typeof gitCode === 'string' && /Error$/.test(gitCode)) {
    // isomorphic-git: HttpError (e.g. 401 with a wrong deploy key), UrlParseError, PushRejectedError, ...
    return { error: { code: 'GIT_FAILED', message: clean(`${gitCode}: ${(err as Error).message}`) }, unexpected: false }
  }
  return { error: { code: 'INTERNAL_ERROR', message: 'The job failed unexpectedly' }, unexpected: true }
}
