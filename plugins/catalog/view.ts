// The typed view of the catalog (`app.catalog.view`, `app.catalog.viewAt`, cache.ts): the one place the
// server reads a catalog document the clients' way (processor-lib/src/contract/view.ts) to judge values
// against it (the environment writes' catalog check and stranded values, the organisation's rules'
// defaults, the upgrade status, the push rule's stored values, the assistant). A document's view is built
// once per document object: a changed catalog is a new document, so a new view. No view (null) when the
// document is of another schema version than 1 (client consumption rule 4), or, for the current catalog,
// when it cannot be read; each reader says what it logs then, since only it knows what goes unchecked.
import { setImmediate as nextTurn } from 'node:timers/promises'
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

/** The schema version a document says it is of: a remote processor's document is any JSON. */
const versionOf = (doc: Catalog): unknown => (doc as Partial<Catalog> | null)?.schemaVersion

/** Typed views of catalog documents, one per document object, with what reading each adjusted. */
export class CatalogViews {
  private readonly views = new WeakMap<Catalog, TypedCatalog>()
  private readonly adjusted = new WeakMap<TypedCatalog, readonly string[]>()

  /** The typed view of `doc`, built once per document; null when it is of another schema version than 1. */
  of(doc: Catalog): TypedCatalog | null {
    if (versionOf(doc) !== 1) return null
    let view = this.views.get(doc)
    if (!view) {
      const read = catalogView(doc)
      this.adjusted.set(read.catalog, Object.freeze(read.warnings))
      this.views.set(doc, (view = read.catalog))
    }
    return view
  }

  /** What building `view` adjusted (an unknown type read as text, a default that cannot be read), one sentence each. */
  warningsOf(view: TypedCatalog): readonly string[] {
    return this.adjusted.get(view) ?? []
  }

  /** Views of the documents `read` gives; a view not yet built is built in a turn of the event loop of its own. */
  reader(read: () => Promise<Catalog>): CatalogViewReader {
    return async (log, warnings) => {
      try {
        const doc = await read()
        if (versionOf(doc) !== 1) {
          if (warnings.otherVersion) log.warn({ schemaVersion: versionOf(doc) }, warnings.otherVersion)
          return null
        }
        if (!this.views.has(doc)) await nextTurn()
        return this.of(doc)
      } catch (err) {
        log.warn({ err: { message: (err as Error).message } }, warnings.unavailable)
        return null
      }
    }
  }
}
