// Where the assistant gets the service catalog: the same source GET /api/catalog reads (templates in
// process through app.templates, which follows TEMPLATES_DIR or TEMPLATES_REPO, or the remote
// processor service with PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN), behind the catalog plugin's own
// cache class with the same TTL and stale window. The cache instance is the assistant's own: the
// catalog plugin keeps its instance private to its route.
import type { FastifyInstance } from 'fastify'
import type { Catalog } from '@ies/processor-lib'
import { CatalogCache } from '../catalog/cache.ts'
import { inProcessSource, remoteSource } from '../catalog/source.ts'

export type { Catalog, CatalogField, CatalogService, CatalogOption } from '@ies/processor-lib'

export type CatalogSource = () => Promise<Catalog>

export function catalogSourceFor(app: FastifyInstance): CatalogSource {
  const { processorUrl, processorToken, ttlMs, staleMs, timeoutMs } = app.config.catalog
  const source =
    processorUrl && processorToken ? remoteSource({ url: processorUrl, token: processorToken, timeoutMs }) : inProcessSource(app.templates)
  const cache = new CatalogCache(source, ttlMs, staleMs)
  return async () => (await cache.get()).catalog
}
