// A failed job's record: the error as the user sees it (jobErrorOf: redacted, nothing internal),
// and the original error for the operator's log.
import type { FastifyBaseLogger } from 'fastify'
import { isDatabaseUnavailable } from '../../core/errors.ts'
import type { ProcessorInput } from '../generation/transform.ts'
import { jobErrorOf } from './errors.ts'
import type { JobError, JobRecord, JobStore } from './store.ts'

/**
 * Stores the job's error (`before` is given it, as it will be stored, first). The original error (message, code, cause chain; redacted like the job's
 * error) is logged for the operator: at error level when unexpected (the user sees only
 * INTERNAL_ERROR), at warn level when something outside failed (a Git server: GIT_UNREACHABLE, ...).
 * A database that does not answer is not the job's fault: rethrown, the attempt is run again (runner.ts).
 */
export async function failJob(
  ctx: { store: JobStore; log: FastifyBaseLogger },
  record: JobRecord,
  err: unknown,
  input: ProcessorInput | undefined,
  secrets: (string | null)[] = [],
  before?: (error: JobError) => Promise<void>,
): Promise<void> {
  if (isDatabaseUnavailable(err)) throw err
  const { error, unexpected, cause } = jobErrorOf(err, secrets)
  if (cause) {
    // Not under `err`: pino's error serializer would flatten the cause chain and drop its codes.
    const entry = { jobId: record._id, type: record.type, code: error.code, error: cause }
    if (unexpected) ctx.log.error(entry, 'job failed unexpectedly')
    else ctx.log.warn(entry, `job failed: ${error.message}`)
  }
  await before?.(error)
  await ctx.store.fail(record, error, input)
}
