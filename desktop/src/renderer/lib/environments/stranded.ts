// A stranded environment in the desktop: the problems the server reports for its stored values
// (`problems` of GET /api/environments and /:id: the values the current catalog refuses), as field
// errors of the wizard while each value is still the stored one.
import { asSentence } from '@ies/processor-lib/contract/fields'
import { valueAtPath } from '@ies/processor-lib/contract/paths'
import type { Environment } from '../api/types.ts'

export type Problem = NonNullable<Environment['problems']>[number]

/** The value at a configuration path (`region`, `services.eks.nodeMinSize`) of an environment or the wizard's values. */
export const valueAt = valueAtPath

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** "Must be ..." from the server's "must be ...". */
export { asSentence }

/** The stored environment's problems by field, for the fields whose value is still the one stored. */
export function strandedErrors(
  stored: Pick<Environment, 'problems' | 'services'> | null,
  current: { services?: Record<string, Record<string, unknown> | undefined> } | null,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const p of stored?.problems ?? []) {
    if (same(valueAt(current, p.field), valueAt(stored as never, p.field))) out[p.field] = asSentence(p.message)
  }
  return out
}
