// The operations of the served OpenAPI document, for tests that must cover every route (a route
// added later is picked up without editing the test, or makes it fail until it is handled).
export interface Operation {
  /** `GET /api/environments/{id}` */
  name: string
  method: string
  path: string
  pathParams: string[]
  operation: Record<string, any>
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  const out: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
      out.push({ name: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, pathParams, operation })
    }
  }
  return out
}
