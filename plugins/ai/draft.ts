// Reading a wizard draft (or a stored environment seen as one) by catalog path.
import { valueAtPath, withValueAt } from '@ies/processor-lib/contract/paths'
import type { Draft } from '@ies/api/schemas/ai'

export type { Draft } from '@ies/api/schemas/ai'

/** The draft's value at `name` or `services.<key>.<field>`; undefined when absent. */
export function valueAt(draft: Draft | undefined, path: string): unknown {
  return valueAtPath(draft, path)
}

/** True when the draft enables the service. */
export function isEnabled(draft: Draft | undefined, service: string): boolean {
  return valueAt(draft, `services.${service}.enabled`) === true
}

/** The draft over a base (a stored environment): globals replaced, services merged field by field. */
export function overlay(base: Draft | undefined, draft: Draft | undefined): Draft | undefined {
  if (!base || !draft) return draft ?? base
  const services: NonNullable<Draft['services']> = structuredClone(base.services ?? {})
  for (const [key, fields] of Object.entries(draft.services ?? {})) services[key] = { ...services[key], ...fields }
  return { ...base, ...draft, services }
}

/** The draft with values set at catalog paths (proposals applied), as a new draft; the original is never modified. */
export function overlayValues(draft: Draft | undefined, values: ReadonlyArray<{ path: string; value: unknown }>): Draft {
  return values.reduce<Draft>((out, { path, value }) => withValueAt(out, path, value), { ...draft, services: { ...draft?.services } })
}
