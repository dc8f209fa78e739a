// An environment's configuration as a person reads it: the enabled services
// with the catalog's labels and each value shown as its widget shows it (an option's label, Yes/No),
// and, when editing, what changed. Used by the wizard's review and the environment's detail page.
import type { PreparedCatalog, WizardField } from '../catalog/prepared-catalog.ts'
import type { ServicesConfig } from '../api/types.ts'

export interface SummaryField {
  key: string
  label: string
  value: string
  /** The value is the template's default. */
  isDefault: boolean
}

export interface SummaryService {
  key: string
  label: string
  fields: SummaryField[]
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

/** A value as its widget shows it. */
export function displayValue(field: WizardField | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—'
  if (field?.type === 'toggle' || typeof value === 'boolean') return value === true ? 'Yes' : 'No'
  if (field?.type === 'dropdown') {
    const option = field.options?.find((o) => o.value === value)
    if (option) return option.label
  }
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** The enabled services, in catalog order, with labels; services the catalog does not know keep their keys. */
export function enabledServices(services: ServicesConfig, catalog: PreparedCatalog): SummaryService[] {
  const out: SummaryService[] = []
  const known = new Set<string>()
  for (const s of catalog.services) {
    known.add(s.key)
    const values = services[s.key]
    if (values?.enabled !== true) continue
    out.push({
      key: s.key,
      label: s.label,
      fields: s.fields
        .filter((f) => f.key !== 'enabled')
        // A value the environment does not hold is generated with the template's default.
        .map((f) => {
          const value = values[f.key] ?? f.default
          return { key: f.key, label: f.label, value: displayValue(f, value), isDefault: same(value, f.default) }
        }),
    })
  }
  for (const [key, values] of Object.entries(services)) {
    if (known.has(key) || values?.enabled !== true) continue
    out.push({
      key,
      label: key,
      fields: Object.entries(values)
        .filter(([k]) => k !== 'enabled')
        .map(([k, v]) => ({ key: k, label: k, value: displayValue(undefined, v), isDefault: false })),
    })
  }
  return out
}

/** What an edit changes in the services, one sentence each, with the catalog's labels. */
export function serviceChanges(before: ServicesConfig, after: ServicesConfig, catalog: PreparedCatalog): string[] {
  const out: string[] = []
  for (const s of catalog.services) {
    const was = before[s.key] ?? {}
    const now = after[s.key] ?? {}
    const wasOn = was.enabled === true
    const isOn = now.enabled === true
    if (wasOn !== isOn) {
      out.push(`${isOn ? 'Enables' : 'Disables'} ${s.label}`)
      if (!isOn) continue
    }
    if (!isOn) continue
    for (const f of s.fields) {
      if (f.key === 'enabled' || same(was[f.key] ?? f.default, now[f.key] ?? f.default)) continue
      out.push(`${s.label} › ${f.label}: ${displayValue(f, was[f.key] ?? f.default)} → ${displayValue(f, now[f.key])}`)
    }
  }
  return out
}

/** What an edit changes in the other settings (labels given by the caller), one sentence each. */
export function settingChanges(before: Record<string, unknown>, after: Record<string, unknown>, labels: Record<string, string>): string[] {
  return Object.entries(labels)
    .filter(([k]) => !same(before[k] ?? '', after[k] ?? ''))
    .map(([k, label]) => `${label}: ${displayValue(undefined, before[k])} → ${displayValue(undefined, after[k])}`)
}
