// The catalog proxy's cache (spec "Catalog", backend proxy behaviour), process-local:
// - fresh for CATALOG_CACHE_TTL_MS after it was fetched or revalidated;
// - revalidated with the ETag (the templates commit): a 304 renews the TTL and keeps the document;
// - when the processor is unreachable, a copy younger than CATALOG_STALE_MS is served stale
//   (the route adds `Warning: 110`); older or no copy: the error goes to the caller (503).
// Concurrent requests share one upstream fetch. `view` is the typed view of the copy, `viewAt` that of a
// templates version (a pinned one), both built by one rule (view.ts).
import type { Catalog } from '@ies/processor-lib'
import type { TypedCatalog } from '@ies/processor-lib/contract/view'
import type { Templates } from '@ies/server/templates/source'
import { catalogDocumentOf, ProcessorUnreachable, type CatalogSource } from './source.ts'
import { CatalogViews, type CatalogViewReader } from './view.ts'

export interface CachedCatalog {
  catalog: Catalog
  etag: string
  /** The `ETag` header's value: the etag quoted. */
  etagHeader: string
  stale: boolean
}

export class CatalogCache {
  /** The copy (as served while fresh) and when the processor last confirmed it. */
  private entry?: { current: CachedCatalog; validatedAt: number }
  private inflight?: Promise<CachedCatalog>
  private readonly views = new CatalogViews()
  /** The typed view of the current catalog, built once per document; null (logged) when there is no usable one. */
  readonly view: CatalogViewReader = this.views.reader(async () => (await this.get()).catalog)
  /** The typed view of a templates version's catalog (its parameter-values file read as the in-process source reads it); null when it has none. */
  readonly viewAt = (templates: Templates): TypedCatalog | null => {
    const doc = catalogDocumentOf(templates)
    return doc && this.views.of(doc)
  }
  /** What building a view adjusted, one sentence each (the assistant logs them). */
  readonly warningsOf = (view: TypedCatalog): readonly string[] => this.views.warningsOf(view)

  constructor(
    private readonly source: CatalogSource,
    private readonly ttlMs: number,
    private readonly staleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<CachedCatalog> {
    return this.fresh() ?? (this.inflight ??= this.refresh().finally(() => (this.inflight = undefined)))
  }

  /** The copy while it is fresh, without waiting (the route answers a revalidation synchronously); else undefined: call get(). */
  fresh(): CachedCatalog | undefined {
    const entry = this.entry
    if (entry && this.now() - entry.validatedAt < this.ttlMs) return entry.current
    return undefined
  }

  private async refresh(): Promise<CachedCatalog> {
    const entry = this.entry
    try {
      const fetched = await this.source.fetch(entry?.current.etag)
      const now = this.now()
      if (fetched.notModified) {
        if (!entry) throw new Error('the processor answered 304 to an unconditional request')
        entry.validatedAt = now
        return entry.current
      }
      const current = Object.freeze({ catalog: fetched.catalog, etag: fetched.etag, etagHeader: `"${fetched.etag}"`, stale: false })
      this.entry = { current, validatedAt: now }
      return current
    } catch (err) {
      if (err instanceof ProcessorUnreachable && entry && this.now() - entry.validatedAt < this.staleMs) {
        return { ...entry.current, stale: true }
      }
      throw err
    }
  }
}
