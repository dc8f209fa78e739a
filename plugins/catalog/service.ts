// Decorates `app.catalog`: the app's one catalog cache. The route beside this file and every other
// reader of the catalog (the checks of environment writes, the assistant) share it, so they see the
// same document, with the same TTL, stale window and upstream fetches; `app.catalog.view` is the typed
// view of that document (view.ts), the one every plugin judges values against. The source is the
// templates in process, or the remote processor service (PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN; with
// TEMPLATES_REPO the catalog of that repository's main, the one generation uses).
import fp from 'fastify-plugin'
import { CatalogCache } from './cache.ts'
import { inProcessSource, remoteSource } from './source.ts'

declare module 'fastify' {
  interface FastifyInstance {
    catalog: CatalogCache
  }
}

export default fp(
  async (app) => {
    const { processorUrl, processorToken, ttlMs, staleMs, timeoutMs } = app.config.catalog
    const source =
      processorUrl && processorToken
        ? remoteSource({ url: processorUrl, token: processorToken, timeoutMs, templatesRepo: app.config.templates.repo })
        : inProcessSource(app.templates)
    app.decorate('catalog', new CatalogCache(source, ttlMs, staleMs))
  },
  { name: 'catalog', decorators: { fastify: ['config', 'templates'] } },
)
