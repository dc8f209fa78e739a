// Where the assistant gets the service catalog: extracted in process from TEMPLATES_DIR and kept
// process-locally for CATALOG_CACHE_TTL_MS (one extraction at a time). To be replaced by the catalog
// plugin's own source once it exports one, so both answer from the same document.
import { extractCatalog, type Catalog } from '@ies/processor-lib'
import type { Config } from '@ies/server/config'

export type { Catalog, CatalogField, CatalogService, CatalogOption } from '@ies/processor-lib'

export type CatalogSource = () => Promise<Catalog>

export function localCatalogSource(config: Pick<Config, 'templates' | 'catalog'>, provider = 'aws'): CatalogSource {
  let cached: { catalog: Catalog; at: number } | undefined
  let pending: Promise<Catalog> | undefined
  return async () => {
    if (cached && Date.now() - cached.at < config.catalog.ttlMs) return cached.catalog
    pending ??= extractCatalog({ templatesDir: config.templates.dir, provider })
      .then((catalog) => {
        cached = { catalog, at: Date.now() }
        return catalog
      })
      .finally(() => {
        pending = undefined
      })
    try {
      return await pending
    } catch (err) {
      // A stale copy is better than no assistant; the error surfaces when there is none.
      if (cached) return cached.catalog
      throw err
    }
  }
}
