// The desktop's frugality rules in isolation. Jobs are followed by long polling (one request per
// wait, not per interval); a catalog request that fails reuses the copy the client holds instead of
// the built-in catalog. The client's hold after a 429 is test/api/rate-limit.test.ts's.
import t from 'tap'
import { ApiError, createApiClient } from '@ies/api'
import { followJob } from '../../../../../desktop/src/renderer/lib/jobs/job-follow.ts'
import { CATALOG_CACHE_KEY, revalidatingCatalogFetch } from '../../../../../desktop/src/renderer/lib/catalog/cache.ts'
import type { Job } from '../../../../../desktop/src/renderer/lib/api/types.ts'

const job = (status: Job['status']): Job => ({ id: 'j1', type: 'generate', status })

t.test('a job is followed with ?wait=true until it ends', async (t) => {
  const urls: string[] = []
  const answers = [job('running'), job('succeeded')]
  const api = createApiClient({
    baseUrl: 'http://ies.test/api',
    auth: { getToken: async () => 't' },
    fetch: async (url) => (urls.push(String(url)), Response.json({ data: answers.shift() })),
  })
  const seen: string[] = []
  const end = await followJob(api, job('queued'), (j) => seen.push(j.status))
  t.equal(end.status, 'succeeded')
  t.same(urls, ['http://ies.test/api/jobs/j1?wait=true', 'http://ies.test/api/jobs/j1?wait=true'], 'one long poll per server wait')
  t.same(seen, ['running', 'succeeded'])
  urls.length = 0
  t.equal((await followJob(api, job('failed'))).status, 'failed')
  t.same(urls, [], 'a finished job costs nothing')
})

t.test('a catalog request that fails reuses the held copy and says why; without a copy the failure stands', async (t) => {
  const m = new Map<string, string>()
  const storage = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: () => {} }
  const refused = async () => {
    throw new ApiError(429, 'RATE_LIMITED', 'limited')
  }
  await t.rejects(revalidatingCatalogFetch(refused, storage)(), { code: 'RATE_LIMITED' })
  m.set(CATALOG_CACHE_KEY, JSON.stringify({ etag: '"c1"', document: { commit: 'c1' } }))
  t.match(await revalidatingCatalogFetch(refused, storage)(), {
    document: { commit: 'c1' },
    etag: '"c1"',
    unchecked: 'limited',
  })
})
