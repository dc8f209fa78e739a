// The assistant's suggestions respect the organisation's rules: a suggestion that, applied to the
// draft, brings a `deny` the draft does not already have is left out (the user is told which rule
// refuses it). The same rules and evaluation as every write (`app.policies`, plugins/policies).
import type { FastifyBaseLogger } from 'fastify'
import { setImmediate } from 'node:timers/promises'
import { violationLine, type PolicyViolation } from '@ies/api/schemas/policies'
import type { Policies } from '../policies/service.ts'
import { overlayValues, type Draft } from './draft.ts'
import type { Suggestion } from './suggestions.ts'

const keyOf = (v: PolicyViolation) => `${v.rule}\0${v.field}`

export interface Refused extends Suggestion {
  /** The rules it would break, in a line. */
  because: string
}

/** The suggestions that bring no new denial, and those left out with the denials they would bring. */
export async function withinRules(
  policies: Policies,
  draft: Draft | undefined,
  suggestions: Suggestion[],
  log: FastifyBaseLogger,
): Promise<{ suggestions: Suggestion[]; refused: Refused[] }> {
  if (suggestions.length === 0) return { suggestions, refused: [] }
  const evaluate = (doc: Draft) =>
    policies.evaluate(doc as Record<string, unknown>, { team: typeof doc.team === 'string' && doc.team !== '' ? doc.team : null, log })
  // Each evaluation reads the whole draft (a wide one takes milliseconds, the first one after a start
  // more): the event loop serves other requests between them, and between the reading and them.
  await setImmediate()
  const before = new Set((await evaluate(draft ?? {})).deny.map(keyOf))
  const kept: Suggestion[] = []
  const refused: Refused[] = []
  for (const suggestion of suggestions) {
    await setImmediate()
    const after = (await evaluate(overlayValues(draft, [suggestion]))).deny.filter((v) => !before.has(keyOf(v)))
    if (after.length === 0) kept.push(suggestion)
    else refused.push({ ...suggestion, because: after.map(violationLine).join('; ') })
  }
  return { suggestions: kept, refused }
}
