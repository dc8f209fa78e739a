// Waits for a state that the code under test reaches asynchronously (a record removed after the
// answer, a counter that settles): reads it until it is what the test expects, or the deadline
// passes, and returns the last reading so the assertion still shows the real value.
import { setTimeout as sleep } from 'node:timers/promises'

export async function eventually<T>(
  read: () => Promise<T>,
  reached: (value: T) => boolean,
  { timeoutMs = 10_000, intervalMs = 20 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (reached(value) || Date.now() > deadline) return value
    await sleep(intervalMs)
  }
}
