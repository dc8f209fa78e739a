// Processor inputs made from a catalog: what the backend's transform sends (global fields, every
// service with `enabled` and its fields, the state backend, the Git repository), with the catalog's
// string attributes read as the wizard reads them (desktop/src/renderer/lib/catalog/prepared-catalog.ts). One source for the
// template tests (test/templates/helpers.ts), `check:templates` (its gate matrix) and
// `check:templates --emit-config` (a configuration file for a local gate run).
import type { Catalog } from '@ies/processor-lib'
import { fillServices, prepareCatalog } from '../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'

export type Config = {
  name: unknown
  globalPrefix: unknown
  provider: string
  region: unknown
  domain: unknown
  services: Record<string, Record<string, unknown>>
  terraformBackend: { bucket: string; key: string; region: string; useLockfile: boolean }
  gitRepository: { url: string; branch: string; branches: string[] }
  [k: string]: unknown
}

/**
 * A processor input: global fields at their defaults, every catalog service with `enabled` as asked
 * and its fields (the catalog's defaults unless `withFields` is false).
 */
export function configFrom(
  catalog: Catalog,
  opts: { enabled: boolean | ((key: string) => boolean); domain?: string; withFields?: boolean },
): Config {
  const prepared = prepareCatalog(catalog)
  const g = Object.fromEntries(Object.entries(prepared.global).map(([k, f]) => [k, f.default]))
  const services: Config['services'] = {}
  for (const key of Object.keys(catalog.services)) {
    services[key] = { enabled: typeof opts.enabled === 'function' ? opts.enabled(key) : opts.enabled }
  }
  if (opts.withFields !== false) fillServices(services, prepared)
  return {
    ...g,
    name: g.name,
    globalPrefix: g.globalPrefix,
    provider: 'aws',
    region: g.region,
    domain: opts.domain ?? g.domain,
    services,
    terraformBackend: {
      bucket: 'ies-state-123456789012',
      key: 'env/00000000-0000-4000-8000-000000000000/aws.tfstate',
      region: 'eu-west-1',
      useLockfile: true,
    },
    gitRepository: { url: 'https://git.example.com/acme/infra.git', branch: 'main', branches: ['main'] },
  }
}

/** The catalog's own defaults: every field's default, each service's enable toggle at its default. */
export function catalogDefaults(catalog: Catalog): Config {
  const cfg = configFrom(catalog, { enabled: false })
  for (const service of prepareCatalog(catalog).services) cfg.services[service.key]!.enabled = service.enabledDefault
  return cfg
}

/** A sample domain for the configurations that have one (a real answer; "" means no domain). */
export const SAMPLE_DOMAIN = 'apps.example.com'

/** The configuration of the gate matrix with every service off. */
export const ALL_OFF = 'all services off'

/** The services of the two mixed configurations of the gate matrix (the keys of the bundled templates). */
const SOME = ['vpc', 'eks', 'rds', 's3', 'route53']
const HALF_OFF = ['vpc', 'waf', 'route53', 'msk', 'lambda', 's3', 'sqs']

/**
 * The gate matrix of `check:templates`: every service on (with a domain), every service off, every
 * service on with no domain, each service alone (with a domain), and two mixes: a few services
 * without a domain, and half the services with the network, WAF and zone among those off (what
 * wiring.tf's stand-alone defaults feed). Names are what a finding says.
 */
export function gateMatrix(catalog: Catalog): { name: string; config: Config }[] {
  const keys = Object.keys(catalog.services)
  return [
    { name: 'all services on', config: configFrom(catalog, { enabled: true, domain: SAMPLE_DOMAIN }) },
    { name: ALL_OFF, config: configFrom(catalog, { enabled: false, domain: SAMPLE_DOMAIN }) },
    { name: 'no domain', config: configFrom(catalog, { enabled: true, domain: '' }) },
    { name: `${SOME.join(', ')}; no domain`, config: configFrom(catalog, { enabled: (k) => SOME.includes(k), domain: '' }) },
    { name: `${HALF_OFF.join(', ')} off`, config: configFrom(catalog, { enabled: (k) => !HALF_OFF.includes(k), domain: SAMPLE_DOMAIN }) },
    ...keys.map((key) => ({ name: `${key} alone`, config: configFrom(catalog, { enabled: (k) => k === key, domain: SAMPLE_DOMAIN }) })),
  ]
}
