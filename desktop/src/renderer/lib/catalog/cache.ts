// The client's copy of the live catalog, kept between sessions so that every load is a conditional
// request: `If-None-Match` with the copy's ETag (the templates commit). A 304 reuses the copy, a
// 200 replaces it. `Warning: 110` (the backend served its own cached copy because the template
// processor was unreachable) is passed on in both cases. When the request fails (rate limited,
// network), the held copy is used and flagged stale.
import type { CatalogResult as CatalogResponse } from '@ies/api'
import type { KeyValueStorage } from '../wizard/draft.ts'

export const CATALOG_CACHE_KEY = 'ies.catalog'

export interface CachedCatalog {
  etag: string
  document: unknown
}

export interface FetchedCatalog {
  document: unknown
  stale: boolean
  /** The ETag the document came with (the templates commit, quoted). */
  etag: string | null
  /** True when the server answered 304 and the client's own copy was used. */
  revalidated: boolean
  /** Why the client's copy was used without asking the server (rate limited, unreachable). */
  unchecked?: string
}

export function readCachedCatalog(storage: KeyValueStorage): CachedCatalog | null {
  try {
    const held = JSON.parse(storage.getItem(CATALOG_CACHE_KEY) ?? 'null') as CachedCatalog | null
    return held && typeof held.etag === 'string' && held.etag !== '' && held.document !== undefined ? held : null
  } catch {
    return null
  }
}

function writeCachedCatalog(storage: KeyValueStorage, copy: CachedCatalog) {
  try {
    storage.setItem(CATALOG_CACHE_KEY, JSON.stringify(copy))
  } catch {
    // A full storage only costs the next load a full response.
  }
}

/** `fetchCatalog` for loadCatalog(): a conditional request with the held copy's ETag. */
export function revalidatingCatalogFetch(request: (etag: string | null) => Promise<CatalogResponse>, storage: KeyValueStorage) {
  return async (): Promise<FetchedCatalog> => {
    const held = readCachedCatalog(storage)
    let res: CatalogResponse
    try {
      res = await request(held?.etag ?? null)
    } catch (error) {
      // Rate limited or unreachable: the copy the client holds is better than the built-in catalog.
      if (held) {
        const unchecked = error instanceof Error ? error.message : String(error)
        return { document: held.document, stale: false, etag: held.etag, revalidated: false, unchecked }
      }
      throw error
    }
    if (res.status === 304) {
      if (held) return { document: held.document, stale: res.stale, etag: res.etag ?? held.etag, revalidated: true }
      // A 304 without a copy to reuse (the copy vanished meanwhile): ask for the document itself.
      res = await request(null)
    }
    if (res.etag && res.document !== undefined) writeCachedCatalog(storage, { etag: res.etag, document: res.document })
    return { document: res.document, stale: res.stale, etag: res.etag, revalidated: false }
  }
}
