// docs/api.md against the served OpenAPI document (test/docs/api-doc.test.ts): every route the
// server documents is named in api.md, every request member (body and query) of a route is named in
// the route's line, and api.md names no route and no body member the server no longer has. Each
// problem says which line to add or change, in api.md's own form.
//
// How api.md is read: a route is a code span `METHOD /path` (a query after `?` is ignored). Under a
// heading that names a prefix (`## Environments — \`/api/environments\``) a path not starting with
// `/api/` is relative to it. A route's line is the table row, or the paragraph, that names it (all of
// them when it is named more than once). A body is a code span `{ ... }` right after the route, or
// after the word "body"; its top-level members are compared with the route's schema.

/** What the checker reads of an OpenAPI 3 document. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; required?: boolean }[]
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }> }
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']
const ROUTE_SPAN = /`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s?]*)(\?[^`]*)?`/g

interface Route {
  method: string
  /** The OpenAPI path with `:param` for `{param}`, without a trailing slash. */
  path: string
  body: string[]
  required: string[]
  query: string[]
}

interface Section {
  title: string
  prefix: string | null
  hasTable: boolean
}

interface Mention {
  key: string
  section: Section
  line: number
  /** The table row or paragraph of the mention. */
  text: string
  /** The top-level members of the body spans that belong to this mention. */
  bodies: string[][]
}

const normalize = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1').replace(/(.)\/$/, '$1')
const keyOf = (method: string, path: string) => `${method.toUpperCase()} ${normalize(path)}`

function routesOf(doc: OpenApiDocument): Map<string, Route> {
  const routes = new Map<string, Route>()
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      const schema = op.requestBody?.content?.['application/json']?.schema
      routes.set(keyOf(method, path), {
        method: method.toUpperCase(),
        path: normalize(path),
        body: Object.keys(schema?.properties ?? {}),
        // A member with a default may be left out, whatever `required` says.
        required: (schema?.required ?? []).filter((m) => !Object.hasOwn((schema?.properties?.[m] as object | undefined) ?? {}, 'default')),
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      })
    }
  }
  return routes
}

/** The top-level member names of a `{ a?, b: { c }, d: [...] }` description. */
export function topLevelMembers(span: string): string[] {
  const inner = span.trim().replace(/^\{/, '').replace(/\}$/, '')
  const members: string[] = []
  let depth = 0
  let part = ''
  for (const ch of `${inner},`) {
    if ('{[('.includes(ch)) depth++
    if ('}])'.includes(ch)) depth--
    if (ch === ',' && depth === 0) {
      const name = /^\s*([A-Za-z_][\w]*)\??\s*(:|$)/.exec(part)?.[1]
      if (name) members.push(name)
      part = ''
    } else part += ch
  }
  return members
}

/** Blocks of api.md: table rows one by one, paragraphs as a whole, each with its first line number. */
function blocksOf(markdown: string): { text: string; line: number; heading?: string }[] {
  const lines = markdown.split('\n')
  const blocks: { text: string; line: number; heading?: string }[] = []
  let paragraph: { text: string; line: number } | null = null
  let fenced = false
  const flush = () => {
    if (paragraph) blocks.push(paragraph)
    paragraph = null
  }
  lines.forEach((line, i) => {
    if (line.startsWith('```')) {
      fenced = !fenced
      flush()
      return
    }
    if (fenced) return
    if (line.startsWith('#')) {
      flush()
      blocks.push({ text: line, line: i + 1, heading: line })
    } else if (line.startsWith('|')) {
      flush()
      blocks.push({ text: line, line: i + 1 })
    } else if (line.trim() === '') flush()
    else if (paragraph) paragraph.text += `\n${line}`
    else paragraph = { text: line, line: i + 1 }
  })
  flush()
  return blocks
}

function mentionsOf(markdown: string): Mention[] {
  const mentions: Mention[] = []
  let section: Section = { title: '(top)', prefix: null, hasTable: false }
  let fromHeading: Mention[] = []
  for (const block of blocksOf(markdown)) {
    // A route named in a heading is described by the block that follows it.
    for (const mention of fromHeading) {
      mention.text += `\n${block.text}`
      const first = /^[\s(]*`(\{[^`]*\})`/.exec(block.text)
      if (first) mention.bodies.push(topLevelMembers(first[1]))
    }
    fromHeading = []
    if (block.heading) {
      if (block.heading.startsWith('## ')) {
        const prefix = /`(\/api\/[^`\s]*)`/.exec(block.heading)?.[1] ?? null
        section = { title: block.heading.slice(3), prefix, hasTable: false }
      }
    }
    if (block.text.startsWith('| Route ')) section.hasTable = true
    for (const match of block.text.matchAll(ROUTE_SPAN)) {
      const [, method, path] = match
      const absolute = path.startsWith('/api/') || path === '/api' || !section.prefix
      const full = absolute ? path : `${section.prefix}${path === '/' ? '' : path}`
      const after = block.text.slice(match.index + match[0].length)
      const bodies: string[][] = []
      const next = /^[\s(]*`(\{[^`]*\})`/.exec(after)
      if (next) bodies.push(topLevelMembers(next[1]))
      // "body `{ ... }`" after it, before the next route of the row or paragraph.
      const tail = after.split(ROUTE_SPAN)[0]
      for (const b of tail.matchAll(/body:?\s+`(\{[^`]*\})`/gi)) bodies.push(topLevelMembers(b[1]))
      const mention = { key: keyOf(method, full), section, line: block.line, text: block.text, bodies }
      mentions.push(mention)
      if (block.heading) fromHeading.push(mention)
    }
  }
  return mentions
}

/** Served but hidden from the OpenAPI document on purpose (schema.hide): api.md may name them. */
const HIDDEN = new Set(['GET /api/openapi.json'])

/** The line a missing route needs, in the form of the section it belongs to. */
function suggestion(route: Route, sections: Section[]): string {
  const section = sections
    .filter((s) => s.prefix && (route.path === s.prefix || route.path.startsWith(`${s.prefix}/`)))
    .sort((a, b) => b.prefix!.length - a.prefix!.length)[0]
  const relative = section ? route.path.slice(section.prefix!.length) || '/' : route.path
  const query = route.query.length > 0 ? ` \`?${route.query.join('&')}\`` : ''
  const members = route.body.map((m) => (route.required.includes(m) ? m : `${m}?`))
  const body = members.length > 0 ? `; body \`{ ${members.join(', ')} }\`` : ''
  const cell = `\`${route.method} ${relative}\`${query}`
  if (!section) return `add a line naming ${cell} (what it answers${body})`
  if (section.hasTable) return `add a row to the table under "## ${section.title}": | ${cell} | <status and answer>${body} |`
  return `add ${cell} (what it answers${body}) to the text under "## ${section.title}"`
}

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(', ')

/** Every way docs/api.md and the OpenAPI document disagree, each with what to do about it. */
export function apiDocProblems(doc: OpenApiDocument, markdown: string): string[] {
  const routes = routesOf(doc)
  const mentions = mentionsOf(markdown)
  const sections = [...new Set(mentions.map((m) => m.section))]
  // Sections without a mention still take rows: read the headings again for their prefixes.
  for (const line of markdown.split('\n')) {
    const prefix = /^## .*`(\/api\/[^`\s]*)`/.exec(line)?.[1]
    if (prefix && !sections.some((s) => s.prefix === prefix)) sections.push({ title: line.slice(3), prefix, hasTable: false })
  }
  const problems: string[] = []
  for (const [key, route] of routes) {
    const named = mentions.filter((m) => m.key === key)
    const shown = `${route.method} ${route.path}`
    if (named.length === 0) {
      problems.push(`docs/api.md does not document ${shown}: ${suggestion(route, sections)}`)
      continue
    }
    const text = named.map((m) => m.text).join('\n')
    const at = `docs/api.md:${named[0].line}`
    const unnamed = (members: string[]) => members.filter((m) => !new RegExp(`\\b${m}\\b`).test(text))
    const body = unnamed(route.body)
    if (body.length > 0) {
      const all = route.body.map((m) => (route.required.includes(m) ? m : `${m}?`))
      problems.push(
        `${at}: ${shown} does not name its body member(s) ${quoted(body)}: write its body in that line, body \`{ ${all.join(', ')} }\``,
      )
    }
    const query = unnamed(route.query)
    if (query.length > 0) {
      problems.push(
        `${at}: ${shown} does not name its query parameter(s) ${quoted(query)}: write them in that line, \`?${route.query.join('&')}\``,
      )
    }
    for (const mention of named) {
      for (const body of mention.bodies) {
        for (const member of body.filter((m) => !route.body.includes(m))) {
          problems.push(`docs/api.md:${mention.line}: ${shown}'s body names "${member}", which the route does not take: remove it`)
        }
      }
    }
  }
  for (const mention of mentions) {
    if (routes.has(mention.key) || HIDDEN.has(mention.key)) continue
    problems.push(`docs/api.md:${mention.line} names ${mention.key}, which the server does not serve: correct or remove it`)
  }
  return [...new Set(problems)]
}
