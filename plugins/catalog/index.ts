// GET /api/catalog: the service catalog the wizard is built from, from the templates in process or
// from the remote processor service (PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN; with TEMPLATES_REPO the
// catalog of that repository's main, the one generation uses: source.ts), through a
// process-local cache (cache.ts, shared as `app.catalog`: service.ts). `ETag` is the templates commit; `If-None-Match` with it gives 304;
// a copy served because the processor is unreachable carries `Warning: 110`. No copy: 503.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { unavailable } from '@ies/server/core/errors'
import type { CachedCatalog } from './cache.ts'
import { CatalogDocument } from '@ies/api/schemas/catalog'
import { ProcessorUnreachable, unquote } from './source.ts'

/** `If-None-Match` names this copy's ETag, or is `*`. */
function matches(header: string | undefined, { etag, etagHeader }: CachedCatalog): boolean {
  if (!header) return false
  if (header === etagHeader) return true
  return header.split(',').some((t) => {
    const v = unquote(t.trim())
    return v === '*' || v === etag
  })
}

const catalog: FastifyPluginAsyncTypebox = async (app) => {
  const cache = app.catalog
  /** The answer from a copy of the catalog: 304 when the client holds it (sent here), else the envelope to send. */
  function answer(request: FastifyRequest, reply: FastifyReply, current: CachedCatalog) {
    reply.header('ETag', current.etagHeader)
    reply.header('Cache-Control', 'no-cache')
    if (current.stale) reply.header('Warning', '110 - "Response is Stale"')
    if (matches(request.headers['if-none-match'], current)) {
      reply.code(304).send()
      return undefined
    }
    return ok(request, current.catalog)
  }

  async function afterFetch(request: FastifyRequest, reply: FastifyReply) {
    let current
    try {
      current = await cache.get()
    } catch (err) {
      request.log.warn({ err: { message: (err as Error).message } }, 'catalog unavailable')
      throw unavailable(
        err instanceof ProcessorUnreachable
          ? 'The catalog is unavailable: the template processor cannot be reached'
          : 'The catalog is unavailable',
      )
    }
    return answer(request, reply, current)
  }

  app.get(
    '/',
    {
      schema: {
        response: {
          200: Envelope(CatalogDocument),
          304: { type: 'null', description: 'The client holds the current catalog.' },
          401: ErrorBody,
          503: ErrorBody,
        },
      },
    },
    // A fresh copy is answered without a promise (revalidations are most of this route's traffic);
    // otherwise the cache fetches or revalidates first.
    (request, reply) => {
      const current = cache.fresh()
      return current ? answer(request, reply, current) : afterFetch(request, reply)
    },
  )
}

export default catalog
