// Values at a catalog path of an environment, a wizard's values or an assistant's draft: a global
// field at the top (`region`) or `services.<key>.<field>`. One reading and one writing for the
// wizard (assistant suggestions applied, stranded values), the assistant (proposals over a draft).
// Own properties only: a path never reaches an object's prototype.

/** What holds values at catalog paths: global values at the top, service values under `services`. */
export interface PathValues {
  services?: Record<string, Record<string, unknown> | undefined>
}

/** A catalog path's parts: `{ key }` for a global field, `{ service, key }` for a service's; null for any other path. */
export function catalogPathParts(path: string): { service?: string; key: string } | null {
  const parts = path.split('.')
  if (parts.length === 1 && parts[0] !== '') return { key: parts[0] }
  if (parts.length === 3 && parts[0] === 'services' && parts[1] !== '' && parts[2] !== '') return { service: parts[1], key: parts[2] }
  return null
}

const own = (o: object | undefined, key: string): unknown => (o && Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined)

/** The value at a catalog path; undefined when absent or not a catalog path. */
export function valueAtPath(doc: PathValues | null | undefined, path: string): unknown {
  const parts = catalogPathParts(path)
  if (!doc || !parts) return undefined
  if (parts.service === undefined) return own(doc, parts.key)
  return own(own(doc.services, parts.service) as object | undefined, parts.key)
}

/** A copy of `doc` with `value` at a catalog path (only what changes is copied); `doc` itself for any other path. */
export function withValueAt<T extends PathValues>(doc: T, path: string, value: unknown): T {
  const parts = catalogPathParts(path)
  if (!parts) return doc
  if (parts.service === undefined) return { ...doc, [parts.key]: value }
  const service = own(doc.services, parts.service) as Record<string, unknown> | undefined
  return { ...doc, services: { ...doc.services, [parts.service]: { ...service, [parts.key]: value } } }
}
