// The general words of a request that are not any one service's: a place for the region ("move
// everything to Frankfurt"; "Europe" is asked about) and a processor family across the services in
// view ("running on Graviton": arm64 and Graviton instance classes). Both write into the reading's
// proposals and notes, and say whether the clause used them.
import type { Catalog } from './catalog-source.ts'
import { valueAt } from './draft.ts'
import { labelOf, show, type Proposals } from './proposals.ts'
import { describeRegion, placeOf } from './regions.ts'
import { familyOf, familyOfValue, optionForFamily, type Family } from './vocabulary.ts'
import { fieldAt } from '@ies/processor-lib/contract/fields'

const FAMILY_NAME: Record<Family, string> = { graviton: 'Graviton (arm64)', x86: 'x86' }

/** A place in the clause, to the region field: one region is proposed, several are asked about. True when the clause names a place. */
export function readPlace(catalog: Catalog, clause: string, out: Proposals): boolean {
  const place = placeOf(clause)
  if (!place || place.regions.length === 0 || !fieldAt(catalog, 'region')) return false
  const [only] = place.regions
  if (place.regions.length === 1) {
    out.add('region', only.code, `${place.name} is ${describeRegion(only)}`)
    return true
  }
  const current = valueAt(out.draft, 'region')
  const inside = place.regions.find((r) => r.code === current)
  out.notes.push(
    inside
      ? `Your region ${describeRegion(inside)} is already in ${place.name}; its other regions: ${place.regions
          .filter((r) => r !== inside)
          .map(describeRegion)
          .join(', ')}.`
      : `"${place.name}" has ${place.regions.length} regions: ${place.regions.map(describeRegion).join(', ')}. Which one? (say "move to ${only.city}" or "region ${only.code}")`,
  )
  return true
}

/**
 * "Graviton" or "x86" in the clause: for each service in view, the dropdowns that offer both
 * families (an architecture, an instance class) move to that family, keeping the size where the
 * family has it. With no service in view, the services that offer a choice are listed. The paths
 * proposed, or null when the clause names no family.
 */
export function readFamily(catalog: Catalog, clause: string, scope: string[], out: Proposals): string[] | null {
  const family = familyOf(clause)
  if (!family) return null
  const services = scope.length > 0 ? scope : Object.keys(catalog.services)
  const set: string[] = []
  const offered: string[] = []
  for (const service of services) {
    for (const [key, f] of Object.entries(catalog.services[service]?.fields ?? {})) {
      if (f.type !== 'dropdown' || !f.options || f.available === false) continue
      const path = `services.${service}.${key}`
      const ref = fieldAt(catalog, path)!
      const current = valueAt(out.draft, path) ?? f.default
      const option = optionForFamily(f.options, current, family)
      if (option === undefined) {
        if (scope.length > 0 && f.options.every((o) => familyOfValue(o.value) === family))
          out.notes.push(`Every ${labelOf(catalog, ref)} option is ${FAMILY_NAME[family]} already.`)
        continue
      }
      offered.push(`${labelOf(catalog, ref)} (\`${path}\`)`)
      if (scope.length === 0) continue
      if (option === null) out.notes.push(`${labelOf(catalog, ref)} is ${show(current)}, already ${FAMILY_NAME[family]}.`)
      else {
        out.add(path, option.value, `${FAMILY_NAME[family]}: ${option.label} instead of ${show(current)}`)
        out.enable(service)
        set.push(path)
      }
    }
  }
  if (scope.length === 0 && offered.length > 0)
    out.notes.push(`${FAMILY_NAME[family]} is a choice of ${offered.join(', ')}: name the service.`)
  return set
}
