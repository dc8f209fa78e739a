/**
 * GET /catalog: the catalog document; the ETag is the templates commit; If-None-Match gives 304.
 *
 * Without `url`: extracted from the service's own templates tree (PROCESSOR_CATALOG_DIR), as
 * POST /process reads it. With `url` (and optional `branch`, default `main`, and `subdir`): the
 * catalog of that templates repository's branch, as POST /process-git-download clones it, so the
 * ETag is the X-Templates-Commit of a generation from it (repo-catalog.ts: an ls-remote per request,
 * a clone only when the branch moved). The URL goes in the query string, which is logged, so it must
 * carry no credentials: they go in `X-Templates-Authorization: Basic <base64(username:password)>`.
 * The URL is checked as POST /process-git-download checks it (http or https, a public address
 * unless PROCESSOR_ALLOWED_HOSTS names the host: git-destination.ts).
 */
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsync } from 'fastify'
import { extractCatalog } from '../extract-catalog.ts'
import { templatesCommit } from '../commit.ts'
import { ProcessorError } from '../findings.ts'
import { checkSubdir, repositoryUrl } from '../git.ts'
import type { ResolvedServiceOptions } from './options.ts'
import { RepositoryCatalogs } from './repo-catalog.ts'
import { gitDestination } from './git-destination.ts'

/** True when an If-None-Match header (a list, possibly weak, quoted or not, or `*`) names the commit. */
export function etagMatches(header: string | undefined, commit: string): boolean {
  if (!header) return false
  return header.split(',').some((t) => {
    const v = t
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1')
    return v === '*' || v === commit
  })
}

const CatalogQuery = Type.Object({
  provider: Type.Optional(Type.String({ maxLength: 64 })),
  url: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2048, description: 'a templates repository (http or https, without credentials)' }),
  ),
  branch: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\w./-]+$' })),
  subdir: Type.Optional(Type.String({ maxLength: 1024 })),
})

/** The repository credentials of `X-Templates-Authorization: Basic …` (undefined without the header). */
export function templatesCredentials(header: string | string[] | undefined): { username: string; password: string } | undefined {
  if (header === undefined) return undefined
  const m = typeof header === 'string' ? /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim()) : null
  const decoded = m ? Buffer.from(m[1], 'base64').toString('utf8') : ''
  const colon = decoded.indexOf(':')
  if (colon < 0) throw new ProcessorError(400, 'BAD_REQUEST', 'X-Templates-Authorization must be Basic <base64 of username:password>')
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

export const catalogRoutes: FastifyPluginAsync<ResolvedServiceOptions> = async (app, opts) => {
  const repositories = new RepositoryCatalogs()
  const destination = gitDestination(opts)

  app.get('/catalog', { schema: { querystring: CatalogQuery } }, async (request, reply) => {
    const query = request.query as Static<typeof CatalogQuery>
    const provider = query.provider ? query.provider : opts.provider
    const ifNoneMatch = request.headers['if-none-match']
    reply.header('Cache-Control', 'no-cache')

    if (query.url !== undefined) {
      const url = repositoryUrl(query.url)
      if (url.username || url.password) {
        throw new ProcessorError(400, 'BAD_REQUEST', 'url must carry no credentials (send them in X-Templates-Authorization)')
      }
      const credentials = templatesCredentials(request.headers['x-templates-authorization'])
      await destination.check(url.toString())
      const result = await repositories.get(
        {
          url: url.toString(),
          branch: query.branch ?? 'main',
          subdir: checkSubdir(query.subdir ?? ''),
          provider,
          ...credentials,
          http: destination.http,
        },
        (commit) => etagMatches(ifNoneMatch, commit),
      )
      reply.header('ETag', `"${result.commit}"`)
      if (result.notModified) return reply.code(304).send()
      return reply.send(result.catalog)
    }
    if (query.branch !== undefined || query.subdir !== undefined || request.headers['x-templates-authorization'] !== undefined) {
      throw new ProcessorError(400, 'BAD_REQUEST', 'branch, subdir and X-Templates-Authorization go with url')
    }

    if (!opts.catalogDir) throw new ProcessorError(503, 'NOT_CONFIGURED', 'no templates tree is configured for the catalog')
    const commit = await templatesCommit(opts.catalogDir).catch(() => {
      throw new ProcessorError(503, 'CATALOG_UNAVAILABLE', 'the templates tree cannot be read')
    })
    reply.header('ETag', `"${commit}"`)
    if (etagMatches(ifNoneMatch, commit)) return reply.code(304).send()
    const catalog = await extractCatalog({ templatesDir: opts.catalogDir, provider, commit })
    return reply.send(catalog)
  })
}
