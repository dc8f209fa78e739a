// Where the assistant gets the service catalog: the app's one catalog cache, the one GET /api/catalog
// and the environment checks read (templates in process, or the processor service with
// PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN, for TEMPLATES_REPO when it is set). The assistant works on
// the typed view of the document (the catalog contract's view.ts); what the view adjusted is logged once per document.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Catalog as CatalogDocument } from '@ies/processor-lib'
import { catalogView, type TypedCatalog as Catalog } from '@ies/processor-lib/contract/view'
import { unitOf } from './quantities.ts'

export type { TypedCatalog as Catalog, TypedField as CatalogField, TypedService as CatalogService } from '@ies/processor-lib/contract/view'
export type { CatalogOption } from '@ies/processor-lib/contract/document'

export type CatalogSource = () => Promise<Catalog>

/** Declared units the assistant cannot convert to: quantities are not read for those fields (the rest of the field works). */
function unitWarnings(catalog: Catalog): string[] {
  return Object.entries(catalog.services).flatMap(([key, s]) =>
    Object.entries(s.fields).flatMap(([field, f]) =>
      f.unit !== undefined && unitOf(f.unit) === null
        ? [`services.${key}.${field}: unit ${JSON.stringify(f.unit)} is not one the assistant converts to; quantities are not read for it`]
        : [],
    ),
  )
}

/** The typed view of each document `fetch` returns, built (and its warnings logged) once per document. */
export function viewingSource(fetch: () => Promise<CatalogDocument>, log: Pick<FastifyBaseLogger, 'warn'>): CatalogSource {
  const views = new WeakMap<CatalogDocument, Catalog>()
  return async () => {
    const doc = await fetch()
    let view = views.get(doc)
    if (!view) {
      const read = catalogView(doc)
      for (const warning of [...read.warnings, ...unitWarnings(read.catalog)])
        log.warn({ commit: doc.commit }, `assistant: catalog: ${warning}`)
      views.set(doc, (view = read.catalog))
    }
    return view
  }
}

export function catalogSourceFor(app: FastifyInstance): CatalogSource {
  const cache = app.catalog
  return viewingSource(async () => (await cache.get()).catalog, app.log)
}
