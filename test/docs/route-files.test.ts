// ARCHITECTURE.md's "Which file serves each route" names, for every route the server serves, the one
// file that declares it. The routes are the ones the built app registers (fastify's onRoute hook:
// the API, health, the web UI, the API docs), HEAD routes fastify adds beside a GET left out. Each
// route is in the table once; each file named exists and holds the route's path (the path after the
// prefix the route is registered under; a plugin's root `/` as a string; for the routes a library
// adds, the prefix the file mounts it at, as a string). The check also runs on doctored tables, so that it is known
// to fail.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { startTestApp } from '../harness/app.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const HEADING = '## Which file serves each route'

interface Served {
  method: string
  url: string
  /** What the route was declared with: its path after its prefix ('' read as '/'), and that prefix. */
  path: string
  prefix: string
}

interface Row {
  method: string
  url: string
  file: string
  line: number
}

/** `/api/x/` and `/api/x` are one route (fastify serves both); `/` stays. */
const trimSlash = (url: string) => (url.length > 1 ? url.replace(/\/$/, '') : url)

/** The routes as fastify's onRoute sees them, one per method and URL, without the HEAD twins of GET routes. */
function servedRoutes(seen: { method: string | string[]; url: string; routePath?: string; prefix?: string }[]): Served[] {
  const out = new Map<string, Served>()
  for (const r of seen) {
    for (const method of [r.method].flat()) {
      const url = trimSlash(r.url)
      const path = r.routePath === '' || r.routePath === undefined ? '/' : r.routePath
      out.set(`${method} ${url}`, { method, url, path, prefix: r.prefix ?? '' })
    }
  }
  for (const [key, route] of out) if (route.method === 'HEAD' && out.has(`GET ${route.url}`)) out.delete(key)
  return [...out.values()].sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
}

/** The table's rows: `| GET | /api/x | plugins/x/index.ts |`, code spans or not. */
function tableRows(markdown: string): Row[] {
  const lines = markdown.split('\n')
  const start = lines.findIndex((l) => l.trim() === HEADING)
  if (start < 0) return []
  const rows: Row[] = []
  for (let i = start + 1; i < lines.length && !lines[i].startsWith('## '); i++) {
    const cells = lines[i].split('|').map((c) => c.trim().replace(/^`|`$/g, ''))
    if (cells.length < 5 || !/^[A-Z]+$/.test(cells[1])) continue
    rows.push({ method: cells[1], url: cells[2], file: cells[3], line: i + 1 })
  }
  return rows
}

const quoted = (text: string, s: string) => [`'${s}'`, `"${s}"`, `\`${s}\``].some((q) => text.includes(q))

/**
 * Whether a file holds the route's path: written out (a wildcard's `*` may be left off), or, for a
 * plugin's root (`/`), as a string; or the prefix the route is registered under as a string (a
 * library's routes, under the prefix the file mounts it at).
 */
function holdsPath(text: string, route: Served): boolean {
  const written = [route.path, route.path.replace(/\*$/, '')].filter((p) => p !== '' && p !== '/')
  if (written.some((p) => text.includes(p))) return true
  if (route.path === '/' && quoted(text, '/')) return true
  return route.prefix !== '' && quoted(text, route.prefix)
}

/** What is wrong with the table against the served routes, one sentence each. */
function routeTableProblems(served: Served[], markdown: string, read: (file: string) => string | null): string[] {
  const rows = tableRows(markdown)
  if (rows.length === 0) return [`ARCHITECTURE.md has no table under "${HEADING}"`]
  const problems: string[] = []
  const byKey = new Map<string, Row[]>()
  for (const row of rows) byKey.set(`${row.method} ${row.url}`, [...(byKey.get(`${row.method} ${row.url}`) ?? []), row])
  for (const route of served) {
    const key = `${route.method} ${route.url}`
    const listed = byKey.get(key) ?? []
    if (listed.length === 0) {
      problems.push(`ARCHITECTURE.md does not name the file of ${key}: add a row | ${route.method} | ${route.url} | <file> |`)
      continue
    }
    if (listed.length > 1) problems.push(`${key} is listed ${listed.length} times (lines ${listed.map((r) => r.line).join(', ')})`)
    for (const row of listed) {
      const text = read(row.file)
      if (text === null) problems.push(`ARCHITECTURE.md:${row.line}: ${key} names ${row.file}, which does not exist`)
      else if (!holdsPath(text, route))
        problems.push(`ARCHITECTURE.md:${row.line}: ${row.file} does not hold the path of ${key} ("${route.path}")`)
    }
  }
  const servedKeys = new Set(served.map((r) => `${r.method} ${r.url}`))
  for (const row of rows)
    if (!servedKeys.has(`${row.method} ${row.url}`))
      problems.push(`ARCHITECTURE.md:${row.line}: ${row.method} ${row.url} is not served: remove the row`)
  return problems
}

const readRepoFile = (file: string) => {
  const full = join(ROOT, file)
  return /^[\w./-]+$/.test(file) && !file.includes('..') && existsSync(full) ? readFileSync(full, 'utf8') : null
}

t.test('ARCHITECTURE.md names the one file that serves each route', async (t) => {
  const seen: { method: string | string[]; url: string; routePath?: string; prefix?: string }[] = []
  await startTestApp(t, {}, { beforeRoutes: async (app) => void app.addHook('onRoute', (route) => void seen.push(route)) })
  const served = servedRoutes(seen)
  t.ok(served.length > 50, `the app's routes are seen (${served.length})`)
  t.ok(
    served.some((r) => r.method === 'POST' && r.url === '/api/environments/:id/push'),
    'routes of plugins registered under another folder prefix are among them',
  )
  const markdown = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8')
  t.same(routeTableProblems(served, markdown, readRepoFile), [], 'every route once, each in a file that declares it')

  await t.test('the check fails on a doctored table', async (t) => {
    const saysOnly = (found: string[], said: RegExp) => {
      t.equal(found.length, 1, found.join('\n'))
      t.match(found[0], said)
    }
    const row = (method: string, url: string) => new RegExp(`^\\| \`${method}\` \\| \`${url.replace(/[.*]/g, '\\$&')}\` \\|.*$`, 'm')
    const push = row('POST', '/api/environments/:id/push')
    t.ok(push.test(markdown), 'the push route has its row')
    const missing = markdown.replace(push, '')
    saysOnly(routeTableProblems(served, missing, readRepoFile), /does not name the file of POST \/api\/environments\/:id\/push/)

    const pushRow = push.exec(markdown)![0]
    const twice = markdown.replace(push, `${pushRow}\n${pushRow}`)
    saysOnly(routeTableProblems(served, twice, readRepoFile), /POST \/api\/environments\/:id\/push is listed 2 times/)

    const moved = markdown.replace(push, pushRow.replace('plugins/push/index.ts', 'plugins/push/routes.ts'))
    saysOnly(routeTableProblems(served, moved, readRepoFile), /names plugins\/push\/routes\.ts, which does not exist/)

    const elsewhere = markdown.replace(push, pushRow.replace('plugins/push/index.ts', 'plugins/jobs/index.ts'))
    saysOnly(
      routeTableProblems(served, elsewhere, readRepoFile),
      /plugins\/jobs\/index\.ts does not hold the path of POST \/api\/environments\/:id\/push/,
    )

    const stale = markdown.replace(push, `${pushRow}\n| \`POST\` | \`/api/environments/:id/archive\` | \`plugins/environments/index.ts\` |`)
    saysOnly(routeTableProblems(served, stale, readRepoFile), /POST \/api\/environments\/:id\/archive is not served/)
  })
})
