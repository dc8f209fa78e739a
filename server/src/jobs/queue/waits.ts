// Waiting for jobs to finish (GET /api/jobs/{id}?wait=, the CLI's and the desktop's waits): woken by
// a job's completion announcement (completions.ts), with reads of the records in between in case an
// announcement was lost with a replica.
import type { CompletionBus } from './completions.ts'
import type { JobRecord, JobStore } from './store.ts'

/**
 * The records (null for an id that is not one of the user's jobs; `userId` null: whoever's, for ids
 * the caller has checked the reader may see), once one of them has finished
 * or is unknown, or as they are after `timeoutMs`. Re-read, when no announcement came, after a
 * sixteenth of `recheckMs` (JOBS_WAIT_RECHECK_MS), then twice as long each time up to all of it
 * (0.3, 0.6, 1.2, 2.5, 5, 5 ... s by default).
 */
export async function waitForAny(
  store: JobStore,
  completions: CompletionBus,
  recheckMs: number,
  userId: string | null,
  jobIds: readonly string[],
  timeoutMs: number,
): Promise<(JobRecord | null)[]> {
  const deadline = Date.now() + timeoutMs
  let pause = recheckMs / 16
  for (;;) {
    const left = deadline - Date.now()
    // Listening before the reads: an announcement between a read and the wait is not lost.
    const waiters = jobIds.map((id) => completions.waiter(id, Math.max(0, Math.min(left, pause, recheckMs))))
    const cancel = () => waiters.forEach((w) => w.cancel())
    const records = await Promise.all(jobIds.map((id) => (userId === null ? store.byId(id) : store.get(userId, id)))).catch((err) => {
      cancel()
      throw err
    })
    if (left <= 0 || records.some((r) => !r || r.status === 'succeeded' || r.status === 'failed')) {
      cancel()
      return records
    }
    await Promise.race(waiters.map((w) => w.woken))
    cancel()
    pause *= 2
  }
}
