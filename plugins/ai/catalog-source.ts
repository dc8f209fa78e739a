// Where the assistant gets the service catalog: the app's one typed view of the current catalog
// (`app.catalog.view`), the one GET /api/catalog's document gives and the environment checks judge against
// (templates in process, or the processor service with PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN, for
// TEMPLATES_REPO when it is set). What the view adjusted is logged once per view.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { TypedCatalog as Catalog } from '@ies/processor-lib/contract/view'
import { unitOf } from './quantities.ts'

export type { TypedCatalog as Catalog, TypedField as CatalogField, TypedService as CatalogService } from '@ies/processor-lib/contract/view'
export type { CatalogOption } from '@ies/processor-lib/contract/document'

/** The typed view of the current catalog; null when there is none (logged). */
export type CatalogSource = () => Promise<Catalog | null>

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

/** What the assistant logs when there is no view: the catalog cannot be read (with its error), or is of another schema version. */
const NO_VIEW = { unavailable: 'assistant: catalog unavailable', otherVersion: 'assistant: catalog of another schema version' }

/**
 * The typed view of the current catalog (`app.catalog.view`), or null when there is none (logged as
 * NO_VIEW says); what the view adjusted and the units the assistant cannot convert to are logged once per view.
 */
export function viewingSource(catalog: Pick<FastifyInstance['catalog'], 'view' | 'warningsOf'>, log: FastifyBaseLogger): CatalogSource {
  const warned = new WeakSet<Catalog>()
  return async () => {
    const view = await catalog.view(log, NO_VIEW)
    if (view && !warned.has(view)) {
      warned.add(view)
      for (const warning of [...catalog.warningsOf(view), ...unitWarnings(view)])
        log.warn({ commit: view.commit }, `assistant: catalog: ${warning}`)
    }
    return view
  }
}

export function catalogSourceFor(app: FastifyInstance): CatalogSource {
  return viewingSource(app.catalog, app.log)
}
