// Where the assistant gets the service catalog: the same source GET /api/catalog reads (templates in
// process through app.templates, which follows TEMPLATES_DIR or TEMPLATES_REPO, or the remote
// processor service with PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN), behind the catalog plugin's own
// cache class with the same TTL and stale window. The cache instance is the assistant's own: the
// catalog plugin keeps its instance private to its route. The assistant works on the typed view of
// the document (catalog-view.ts); what the view adjusted is logged once per document.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Catalog as CatalogDocument } from '@ies/processor-lib'
import { CatalogCache } from '../catalog/cache.ts'
import { inProcessSource, remoteSource } from '../catalog/source.ts'
import { catalogView, type Catalog } from './catalog-view.ts'

export type { Catalog, CatalogField, CatalogService, CatalogOption } from './catalog-view.ts'

export type CatalogSource = () => Promise<Catalog>

/** The typed view of each document `fetch` returns, built (and its warnings logged) once per document. */
export function viewingSource(fetch: () => Promise<CatalogDocument>, log: Pick<FastifyBaseLogger, 'warn'>): CatalogSource {
  const views = new WeakMap<CatalogDocument, Catalog>()
  return async () => {
    const doc = await fetch()
    let view = views.get(doc)
    if (!view) {
      const read = catalogView(doc)
      for (const warning of read.warnings) log.warn({ commit: doc.commit }, `assistant: catalog: ${warning}`)
      views.set(doc, (view = read.catalog))
    }
    return view
  }
}

export function catalogSourceFor(app: FastifyInstance): CatalogSource {
  const { processorUrl, processorToken, ttlMs, staleMs, timeoutMs } = app.config.catalog
  const source =
    processorUrl && processorToken ? remoteSource({ url: processorUrl, token: processorToken, timeoutMs, templatesRepo: app.config.templates.repo }) : inProcessSource(app.templates)
  const cache = new CatalogCache(source, ttlMs, staleMs)
  return viewingSource(async () => (await cache.get()).catalog, app.log)
}
