// Every suggestion that leaves the assistant, from the built-in assistant or from a model, passes
// through acceptSuggestions: only catalog paths, only values that fit the field (the catalog contract's fields.ts).
// Anything else is dropped silently (the count is returned for logging).
import type { Catalog } from './catalog-source.ts'
import { fieldAt, valueProblem } from '@ies/processor-lib/contract/fields'
import { testPattern } from '@ies/server/core/safe-pattern'
import { valueAt, type Draft } from './draft.ts'

export type SuggestionValue = string | number | boolean

export interface Suggestion {
  path: string
  value: SuggestionValue
  reason: string
}

export const MAX_SUGGESTIONS = 20
export const MAX_REASON_LENGTH = 500

export interface Accepted {
  suggestions: Suggestion[]
  dropped: number
}

/**
 * The valid suggestions among `raw`, first one per path wins. A suggestion that would not change the
 * draft (same value already there) is dropped too.
 */
export function acceptSuggestions(catalog: Catalog, raw: unknown, draft?: Draft): Accepted {
  const list = Array.isArray(raw) ? raw : []
  const out: Suggestion[] = []
  const seen = new Set<string>()
  for (const item of list) {
    if (out.length >= MAX_SUGGESTIONS) break
    if (typeof item !== 'object' || item === null) continue
    const { path, value, reason } = item as Record<string, unknown>
    if (typeof path !== 'string' || seen.has(path)) continue
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue
    const ref = fieldAt(catalog, path)
    if (!ref || valueProblem(ref, value, testPattern) !== null) continue
    if (draft && valueAt(draft, path) === value) continue
    seen.add(path)
    out.push({ path, value, reason: typeof reason === 'string' ? reason.trim().slice(0, MAX_REASON_LENGTH) : '' })
  }
  return { suggestions: out, dropped: list.length - out.length }
}
