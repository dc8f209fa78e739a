// What the rules read (docs/policies.md, "Input"): `input.environment`, the configuration with the
// catalog's defaults filled in for the fields a service leaves unset (what generation writes for
// them), and `input.plan` when a plan of the change exists. Secrets never enter it: no deploy key,
// no credential values.
import type { TypedCatalog } from '@ies/processor-lib/contract/view'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The members of an environment the rules see, as written (top level). */
const SEEN = ['name', 'globalPrefix', 'provider', 'region', 'domain', 'labels', 'team', 'templatesPin', 'terraformBackend'] as const

export interface PolicyInput {
  environment: Json
  /** A plan of the change (a Terraform plan as JSON), when the caller has one. */
  plan?: unknown
}

/** A service's settings over its catalog defaults; a service the catalog does not know as written. */
function withDefaults(catalog: TypedCatalog | null, key: string, settings: Json): Json {
  const fields = catalog?.services[key]?.fields
  if (!fields) return { ...settings }
  const defaults = Object.fromEntries(
    Object.entries(fields)
      .filter(([, f]) => f.default !== null && f.default !== undefined)
      .map(([name, f]) => [name, f.default]),
  )
  return { ...defaults, ...settings }
}

/** The rules' input for an environment document (a create body, a merged patch or a stored record). */
export function policyInput(doc: Json, catalog: TypedCatalog | null, extra: { team?: string | null; plan?: unknown } = {}): PolicyInput {
  const environment: Json = { labels: {}, services: {} }
  for (const key of SEEN) if (doc[key] !== undefined && doc[key] !== null) environment[key] = structuredClone(doc[key])
  if (extra.team !== undefined) environment.team = extra.team ?? undefined
  if (isObject(doc.gitRepository)) {
    const { url, branch } = doc.gitRepository
    environment.gitRepository = { url, branch }
  }
  const services: Json = {}
  if (isObject(doc.services)) {
    for (const [key, settings] of Object.entries(doc.services)) {
      if (isObject(settings)) services[key] = withDefaults(catalog, key, settings)
    }
  }
  environment.services = services
  return { environment, ...(extra.plan !== undefined && { plan: extra.plan }) }
}
