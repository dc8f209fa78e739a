// Caps on the size of one environment, far above what a real configuration needs (the bundled
// catalog has 15 services of at most 9 fields), so that every per-request algorithm has bounded
// work: a body of tens of thousands of services or values is refused at once, before the schema
// (which reports every error) and the catalog check walk it. The schema states the same caps
// (maxProperties) for the OpenAPI document; both take them from @ies/api/schemas/environments.
import type { FieldError } from '@ies/server/core/errors'
import { MAX_HELM_CHARTS, MAX_SERVICE_FIELDS, MAX_SERVICES } from '@ies/api/schemas/environments'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Counts members up to `max + 1` (a for-in stops early; Object.keys would list them all). */
function over(o: Json, max: number): boolean {
  let n = 0
  for (const key in o) if (Object.hasOwn(o, key) && ++n > max) return true
  return false
}

/** The caps a body (a create body, a merge patch or a merged document) exceeds; at most one error per cap. */
export function sizeProblems(body: unknown): FieldError[] {
  const problems: FieldError[] = []
  if (!isObject(body)) return problems
  const services = body.services
  if (isObject(services)) {
    if (over(services, MAX_SERVICES)) problems.push({ field: 'services', message: `must not have more than ${MAX_SERVICES} services` })
    else {
      for (const key in services) {
        const fields = services[key]
        if (isObject(fields) && over(fields, MAX_SERVICE_FIELDS)) {
          problems.push({ field: `services.${key}`, message: `must not have more than ${MAX_SERVICE_FIELDS} fields` })
          break
        }
      }
    }
  }
  const charts = body.helmCharts
  if (isObject(charts) && over(charts, MAX_HELM_CHARTS)) {
    problems.push({ field: 'helmCharts', message: `must not have more than ${MAX_HELM_CHARTS} charts` })
  }
  return problems
}
