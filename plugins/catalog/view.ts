// The typed view of the current catalog (`app.catalog.view`, cache.ts): the one place the server reads
// the catalog it judges values against (the environment writes' catalog check and stranded values, the
// organisation's rules' defaults, the upgrade status, the push rule's stored values). The document
// comes from the catalog cache and is read the clients' way (processor-lib/src/contract/view.ts); its
// view is built once per document: a changed catalog is a new document, so a new view. No view (null)
// when the catalog cannot be read, or when its document is of another schema version than 1 (client
// consumption rule 4); each reader says what it logs then, since only it knows what goes unchecked.
import type { FastifyBaseLogger } from 'fastify'
import type { Catalog } from '@ies/processor-lib'
import { catalogView, type TypedCatalog } from '@ies/processor-lib/contract/view'

/** What a reader logs (at warn) when it gets no view. */
export interface ViewWarnings {
  /** The catalog cannot be read: logged with the error's message. */
  unavailable: string
  /** The document is of another schema version: logged with its `schemaVersion`; unset, nothing is logged. */
  otherVersion?: string
}

/** The typed view of the current catalog, or null (logged as `warnings` say) when there is no usable one. */
export type CatalogViewReader = (log: FastifyBaseLogger, warnings: ViewWarnings) => Promise<TypedCatalog | null>

/** Views of the documents `read` gives, one per document object (the cache keeps the object while the catalog is unchanged). */
export function typedViews(read: () => Promise<Catalog>): CatalogViewReader {
  const views = new WeakMap<Catalog, TypedCatalog>()
  return async (log, warnings) => {
    try {
      const doc = await read()
      // A remote processor's document is any JSON: only an object whose schemaVersion is 1 is read.
      const version: unknown = (doc as Partial<Catalog> | null)?.schemaVersion
      if (version !== 1) {
        if (warnings.otherVersion) log.warn({ schemaVersion: version }, warnings.otherVersion)
        return null
      }
      let view = views.get(doc)
      if (!view) views.set(doc, (view = catalogView(doc).catalog))
      return view
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, warnings.unavailable)
      return null
    }
  }
}
