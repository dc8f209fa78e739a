// The client's copy of the live catalog: a conditional request with its ETag, 304 reuses the copy,
// 200 replaces it, Warning: 110 is passed on; and the API client's reading of the response.
import t from 'tap'
import { CATALOG_CACHE_KEY, readCachedCatalog, revalidatingCatalogFetch } from '../../../../../desktop/src/renderer/lib/catalog/cache.ts'
import { createApiClient, isStaleWarning, type CatalogDocument, type CatalogResult as CatalogResponse } from '@ies/api'

function memoryStorage() {
  const m = new Map<string, string>()
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  }
}

// A partial document: the cache keeps whatever the server sent (the desktop's guard checks it later).
const doc = (commit: string) => ({ schemaVersion: 1, commit, services: {} }) as unknown as CatalogDocument

t.test('no copy: unconditional; the answer is kept; next time If-None-Match, 304 reuses the copy', async (t) => {
  const storage = memoryStorage()
  const sent: (string | null)[] = []
  const answers: CatalogResponse[] = [
    { status: 200, etag: '"c1"', stale: false, document: doc('c1') },
    { status: 304, etag: '"c1"', stale: true },
  ]
  const fetchCatalog = revalidatingCatalogFetch(async (etag) => (sent.push(etag), answers.shift()!), storage)
  t.match(await fetchCatalog(), { document: doc('c1'), stale: false, revalidated: false })
  t.same(readCachedCatalog(storage), { etag: '"c1"', document: doc('c1') })
  t.match(await fetchCatalog(), { document: doc('c1'), stale: true, revalidated: true, etag: '"c1"' })
  t.same(sent, [null, '"c1"'])
})

t.test('a new commit replaces the copy', async (t) => {
  const storage = memoryStorage()
  storage.setItem(CATALOG_CACHE_KEY, JSON.stringify({ etag: '"old"', document: doc('old') }))
  const fetchCatalog = revalidatingCatalogFetch(async () => ({ status: 200, etag: '"new"', stale: false, document: doc('new') }), storage)
  t.same((await fetchCatalog()).document, doc('new'))
  t.equal(readCachedCatalog(storage)?.etag, '"new"')
})

t.test('a 304 without a copy asks again without a condition; an unreadable copy is ignored', async (t) => {
  const storage = memoryStorage()
  storage.setItem(CATALOG_CACHE_KEY, '{not json')
  const sent: (string | null)[] = []
  const answers: CatalogResponse[] = [
    { status: 304, etag: '"c"', stale: false },
    { status: 200, etag: '"c"', stale: false, document: doc('c') },
  ]
  const fetchCatalog = revalidatingCatalogFetch(async (etag) => (sent.push(etag), answers.shift()!), storage)
  t.same((await fetchCatalog()).document, doc('c'))
  t.same(sent, [null, null])
})

t.test('api client: If-None-Match, 304, Warning: 110, no browser cache', async (t) => {
  const calls: { headers: Record<string, string>; cache?: RequestCache }[] = []
  const api = createApiClient({
    baseUrl: 'http://ies.test/api',
    auth: { getToken: async () => 'token' },
    fetch: (async (_url: string, init: RequestInit) => {
      calls.push({ headers: init.headers as Record<string, string>, cache: init.cache })
      return new Response(null, { status: 304, headers: { etag: '"c1"', warning: '110 - "Response is Stale"' } })
    }) as never,
  })
  const res = await api.catalog('"c1"')
  t.same(res, { status: 304, etag: '"c1"', stale: true })
  t.equal(calls[0].headers['if-none-match'], '"c1"')
  t.equal(calls[0].cache, 'no-store')
  t.ok(isStaleWarning('199 - "misc", 110 - "Response is Stale"'))
  t.notOk(isStaleWarning('111 - "Revalidation Failed"'))
  t.notOk(isStaleWarning(null))
})
