// Reading a wizard draft (or a stored environment seen as one) by catalog path.
import type { Draft } from '@ies/api/schemas/ai'

export type { Draft } from '@ies/api/schemas/ai'

/** The draft's value at `name` or `services.<key>.<field>`; undefined when absent. */
export function valueAt(draft: Draft | undefined, path: string): unknown {
  if (!draft) return undefined
  const parts = path.split('.')
  if (parts.length === 1) return Object.hasOwn(draft, path) ? (draft as Record<string, unknown>)[path] : undefined
  if (parts.length !== 3 || parts[0] !== 'services') return undefined
  const service = draft.services && Object.hasOwn(draft.services, parts[1]) ? draft.services[parts[1]] : undefined
  return service && Object.hasOwn(service, parts[2]) ? service[parts[2]] : undefined
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

/** The draft with values set at catalog paths (proposals applied), as a new draft. */
export function overlayValues(draft: Draft | undefined, values: ReadonlyArray<{ path: string; value: unknown }>): Draft {
  // Copies only what changes (a draft may hold thousands of values; the original is never modified).
  const out: Draft = { ...draft, services: { ...draft?.services } }
  for (const { path, value } of values) {
    const parts = path.split('.')
    if (parts.length === 1) (out as Record<string, unknown>)[path] = value
    else if (parts.length === 3 && parts[0] === 'services') out.services![parts[1]] = { ...out.services![parts[1]], [parts[2]]: value }
  }
  return out
}
