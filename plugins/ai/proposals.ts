// The proposals a request reading collects: each is checked against its field when it is added (a
// value that does not fit is said, with the reason), a value the draft already has is not proposed,
// and the first proposal for a path wins.
import type { Catalog } from './catalog-source.ts'
import { fieldAt, valueProblem, type FieldRef } from '@ies/processor-lib/contract/fields'
import { testPattern } from '@ies/server/core/safe-pattern'
import { isEnabled, overlayValues, valueAt, type Draft } from './draft.ts'

export type Value = string | number | boolean

export interface Proposal {
  path: string
  value: Value
  reason: string
}

export const labelOf = (catalog: Catalog, ref: FieldRef) =>
  ref.service ? `${catalog.services[ref.service].displayName} ${ref.field.displayName}` : ref.field.displayName
export const serviceLabel = (catalog: Catalog, key: string) => catalog.services[key]?.displayName ?? key
export const show = (v: unknown) => JSON.stringify(v)

export class Proposals {
  readonly list: Proposal[] = []
  readonly notes: string[] = []
  constructor(
    private readonly catalog: Catalog,
    readonly draft: Draft | undefined,
  ) {}

  remove(path: string) {
    const i = this.list.findIndex((p) => p.path === path)
    if (i >= 0) this.list.splice(i, 1)
  }

  has(path: string) {
    return this.list.some((p) => p.path === path)
  }

  /** Adds a proposal if its value fits the field; says why otherwise (with what was asked, "20 minutes = 1200 s"). A value the draft has is not proposed. */
  add(path: string, value: Value, reason: string, asked?: string) {
    if (this.has(path)) return
    const ref = fieldAt(this.catalog, path)
    if (!ref) return
    const problem = valueProblem(ref, value, testPattern)
    if (problem) {
      this.notes.push(
        `I cannot set ${labelOf(this.catalog, ref)} (\`${path}\`) to ${show(value)}${asked ? ` (${asked})` : ''}: it ${problem}.`,
      )
      return
    }
    const current = valueAt(this.draft, path)
    if (current === value) {
      if (ref.key !== 'enabled') this.notes.push(`${labelOf(this.catalog, ref)} is already ${show(value)} in your draft.`)
      return
    }
    this.list.push({ path, value, reason })
  }

  /** Turns a service on (its description says what it brings), with why when it is needed by something else. */
  enable(service: string, neededFor?: string) {
    const s = this.catalog.services[service]
    if (!s || isEnabled(this.draft, service)) return
    const what = `${s.displayName}${s.description ? `: ${s.description}` : ''}`
    this.add(`services.${service}.enabled`, true, neededFor ? `${what} (needed for ${neededFor})` : what)
  }

  /** The draft as it would be with the proposals applied. */
  projected(): Draft {
    return overlayValues(this.draft, this.list)
  }
}
