// The first reading in a process costs several times a later one (about 40 ms against 6 on an idle
// machine: V8 compiles the reading's functions and regular expressions as they first run), all of it
// in one turn of the event loop. The assistant's first request reads a few short requests first, each
// in a turn of its own, so that its own reading, and every later one, runs warm. Once per process,
// by the first request (not at the start: most servers and test processes never read one).
import { setImmediate } from 'node:timers/promises'
import { builtinAssistant } from './builtin-assistant.ts'
import type { Catalog } from './catalog-source.ts'

/** Short requests that together run most of the reading: services, fields, numbers, units, ranges, places, checks. */
const PHRASES = [
  'hello',
  'enable the network',
  'at least 3 nodes',
  'keep the logs for 2 weeks',
  'between 2 and 4 in Frankfurt',
  'check my draft',
]

let warming: Promise<void> | undefined

/** Resolves once the reading has run the warm-up requests (on the first caller's catalog), each in a turn of the loop of its own. */
export function warmReading(catalog: Catalog): Promise<void> {
  return (warming ??= (async () => {
    for (const content of PHRASES) {
      await setImmediate()
      try {
        builtinAssistant({ catalog, messages: [{ role: 'user', content }] })
      } catch {
        // Only a warm-up: the request's own reading says what is wrong.
      }
    }
    await setImmediate()
  })())
}
