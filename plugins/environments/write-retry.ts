// What every versioned write of an environment shares (README.md, "Concurrent writes"): the 409 of a
// write computed from a version that is no longer stored, how often a lost race is retried and how
// long it pauses, and the `updatedAt` a write gives the record.
import { setTimeout as sleep } from 'node:timers/promises'
import { AppError, SPEC_CODES } from '@ies/server/core/errors'

/** A write computed from a version of the record that is no longer the stored one. */
export class VersionConflict extends AppError {
  constructor() {
    super(409, SPEC_CODES.conflict, 'The environment was changed by another request at the same time; try again')
  }
}

/** How often a read-merge-write that keeps losing version races runs before answering 409. */
export const UPDATE_ATTEMPTS = 5
const RETRY_PAUSE_MS = 20

/** The pause before attempt `n + 1`: longer after each lost race, jittered so racers part. */
export function pauseBeforeRetry(n: number): Promise<void> {
  return sleep(RETRY_PAUSE_MS * n * (0.5 + Math.random()))
}

/** `updatedAt` of a write: now, and always after the version it replaces. */
export function nextUpdatedAt(previous: Date): Date {
  return new Date(Math.max(Date.now(), previous.getTime() + 1))
}
