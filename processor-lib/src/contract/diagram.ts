// The picture of an environment: a Mermaid flowchart of its enabled services and how they connect,
// made from the catalog and the configuration. The processor writes it into the generated README
// (GitHub and GitLab draw a ```mermaid block); the desktop's review step and environment page draw
// the same text with the mermaid library. Everything it knows of a service comes from the template's
// `@module` line, so a service a template author adds is drawn with no code change:
//   diagram=<kind>          the node's shape: network, cluster, compute, database, cache, search,
//                           queue, topic, stream, storage, registry, dns, cdn, firewall (other: a box)
//   within=<key>            drawn inside that service (a network) when it is enabled too
//   connects=<key>[:label],...  lines to other services, each drawn when both ends are enabled
// No Node module and no DOM: the browser bundle imports it as it is.
import type { Catalog } from './document.ts'

/** The diagram attributes of a `@module`, as written. */
export interface DiagramAttributes {
  diagram?: string
  within?: string
  connects?: string
}

/** What the diagram needs of one catalog service. */
export interface DiagramService extends DiagramAttributes {
  key: string
  label: string
}

/** Mermaid flowchart shapes by kind: the text before and after the node's label. */
const SHAPES: Readonly<Record<string, readonly [string, string]>> = {
  network: ['{{', '}}'],
  firewall: ['{{', '}}'],
  cluster: ['[[', ']]'],
  compute: ['(', ')'],
  database: ['[(', ')]'],
  cache: ['[(', ')]'],
  search: ['[(', ')]'],
  storage: ['[(', ')]'],
  queue: ['>', ']'],
  topic: ['>', ']'],
  stream: ['>', ']'],
  registry: ['[/', '/]'],
  dns: ['((', '))'],
  cdn: ['([', '])'],
}
const BOX: readonly [string, string] = ['[', ']']

/** The services of a catalog document, in its order, with their diagram attributes. */
export function catalogDiagramServices(catalog: Pick<Catalog, 'services'>): DiagramService[] {
  return Object.entries(catalog.services).map(([key, s]) => {
    const out: DiagramService = { key, label: typeof s.displayName === 'string' && s.displayName ? s.displayName : key }
    if (typeof s.diagram === 'string') out.diagram = s.diagram
    if (typeof s.within === 'string') out.within = s.within
    if (typeof s.connects === 'string') out.connects = s.connects
    return out
  })
}

/** One line of `connects=`: the other service and the line's label. */
export interface Connection {
  to: string
  label?: string
}

/** `connects=s3:origin,waf` read: comma-separated `<key>` or `<key>:<label>`, blanks left out. */
export function parseConnects(text: string | undefined): Connection[] {
  if (!text) return []
  const out: Connection[] = []
  for (const part of text.split(',')) {
    const [to, ...rest] = part.split(':')
    const key = to.trim()
    if (!key) continue
    const label = rest.join(':').trim()
    out.push(label ? { to: key, label } : { to: key })
  }
  return out
}

/** The services the diagram draws: those whose `enabled` value is on, in the given order. */
export function drawnServices(services: readonly DiagramService[], config: unknown): DiagramService[] {
  return services.filter((s) => isEnabled(config, s.key))
}

/** The falsy rule of `@section` (processor-lib's lookup.ts): a service is drawn when `enabled` is not falsy. */
function isEnabled(config: unknown, key: string): boolean {
  const services = isObject(config) ? config.services : undefined
  const service = isObject(services) && Object.hasOwn(services, key) ? services[key] : undefined
  const value = isObject(service) && Object.hasOwn(service, 'enabled') ? service.enabled : undefined
  return !(value === undefined || value === false || value === null || value === '' || value === 0)
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** A node id Mermaid reads whatever the key (keys may hold `.` and `-`; `end` is a keyword). */
function nodeId(key: string): string {
  return `svc_${key.replace(/[^A-Za-z0-9_]/g, (c) => `_${c.charCodeAt(0).toString(16)}_`)}`
}

/** A label as a quoted Mermaid string: quotes and angle brackets as entities, one line. */
function text(label: string): string {
  const escaped = label
    .replace(/[\r\n]+/g, ' ')
    .replace(/#/g, '#35;')
    .replace(/"/g, '#quot;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;')
  return `"${escaped}"`
}

/** Each service's enclosing service (`within=`, enabled); a service in a `within=` loop is drawn at the top. */
function containers(enabled: readonly DiagramService[], on: ReadonlySet<string>): Map<string, string> {
  const declared = new Map<string, string>()
  for (const s of enabled) if (s.within && s.within !== s.key && on.has(s.within)) declared.set(s.key, s.within)
  const parents = new Map<string, string>()
  for (const [key, parent] of declared) {
    const seen = new Set([key])
    let at: string | undefined = parent
    while (at !== undefined && !seen.has(at)) {
      seen.add(at)
      at = declared.get(at)
    }
    if (at === undefined) parents.set(key, parent)
  }
  return parents
}

/**
 * The Mermaid flowchart of the enabled services: one node per service (its shape from `diagram=`),
 * services `within=` an enabled network drawn inside it, and a line for each `connects=` whose two
 * ends are enabled. With no service enabled, one node says so. Same input, same text.
 */
export function environmentDiagram(services: readonly DiagramService[], config: unknown): string {
  const enabled = drawnServices(services, config)
  const on = new Set(enabled.map((s) => s.key))
  const lines = ['flowchart LR']
  if (enabled.length === 0) {
    lines.push(`  none[${text('No services enabled')}]`)
    return lines.join('\n') + '\n'
  }
  const node = (s: DiagramService) => {
    const [open, close] = SHAPES[s.diagram ?? ''] ?? BOX
    return `${nodeId(s.key)}${open}${text(s.label)}${close}`
  }
  const parents = containers(enabled, on)
  const children = new Map<string, DiagramService[]>()
  for (const s of enabled) {
    const parent = parents.get(s.key)
    if (parent) children.set(parent, [...(children.get(parent) ?? []), s])
  }
  const draw = (s: DiagramService, indent: string) => {
    const inside = children.get(s.key)
    if (!inside) {
      lines.push(`${indent}${node(s)}`)
      return
    }
    lines.push(`${indent}subgraph ${nodeId(s.key)}[${text(s.label)}]`)
    for (const c of inside) draw(c, `${indent}  `)
    lines.push(`${indent}end`)
  }
  for (const s of enabled) if (!parents.has(s.key)) draw(s, '  ')
  for (const s of enabled) {
    for (const c of parseConnects(s.connects)) {
      if (!on.has(c.to) || c.to === s.key) continue
      lines.push(`  ${nodeId(s.key)} -->${c.label ? `|${text(c.label)}|` : ''} ${nodeId(c.to)}`)
    }
  }
  return lines.join('\n') + '\n'
}
