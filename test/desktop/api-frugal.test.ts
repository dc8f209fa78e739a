// The client's frugality rules in isolation. Jobs are followed by long polling
// (one request per wait, not per interval); after a 429 the client holds its requests until the
// time the server named and says when the user can try again; a catalog request that fails reuses
// the copy the client holds instead of the built-in catalog.
import t from 'tap'
import { ApiError, createApiClient, rateLimitMessage, retryTimeOf } from '../../desktop/src/lib/api-client.ts'
import { followJob } from '../../desktop/src/lib/job-follow.ts'
import { CATALOG_CACHE_KEY, revalidatingCatalogFetch } from '../../desktop/src/lib/catalog-cache.ts'
import type { Job } from '../../desktop/src/lib/types.ts'

const job = (status: Job['status']): Job => ({ id: 'j1', type: 'generate', status })

t.test('a job is followed with ?wait=true until it ends', async (t) => {
  const urls: string[] = []
  const answers = [job('running'), job('succeeded')]
  const api = createApiClient({
    baseUrl: 'http://ies.test/api',
    getToken: async () => 't',
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

t.test('after a 429 requests wait for the time the server named; the message says when', async (t) => {
  let clock = Date.parse('2026-01-01T10:00:00Z')
  let calls = 0
  const limited: Date[] = []
  const api = createApiClient({
    baseUrl: 'http://ies.test/api',
    getToken: async () => 't',
    now: () => clock,
    onRateLimited: (d) => limited.push(d),
    fetch: async () => {
      calls++
      if (calls === 1)
        return Response.json(
          { error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded, retry in 30 seconds' } },
          { status: 429, headers: { 'retry-after': '30' } },
        )
      return Response.json({ data: { theme: 'dark', defaultProvider: 'aws' } })
    },
  })
  const first = await api.preferences().catch((e) => e)
  t.ok(first instanceof ApiError && first.isRateLimited)
  t.equal(first.retryAt.toISOString(), '2026-01-01T10:00:30.000Z')
  t.match(first.message, /You can try again at .* \(in 30 seconds\)/)
  t.same(limited, [first.retryAt], 'the app is told (banner)')
  clock += 10_000
  const held = await api.preferences().catch((e) => e)
  t.ok(held instanceof ApiError && held.isRateLimited, 'still limited')
  t.match(held.message, /in 20 seconds/)
  t.equal(calls, 1, 'a request the server would refuse is not sent')
  clock += 21_000
  t.same(await api.preferences(), { theme: 'dark', defaultProvider: 'aws' }, 'after the time, requests go again')
  t.equal(calls, 2)
})

t.test('when to retry: Retry-After in seconds or as a date, else X-RateLimit-Reset, else a minute', async (t) => {
  const now = Date.parse('2026-01-01T10:00:00Z')
  t.equal(retryTimeOf(new Headers({ 'retry-after': '5' }), now).toISOString(), '2026-01-01T10:00:05.000Z')
  t.equal(retryTimeOf(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 10:02:00 GMT' }), now).toISOString(), '2026-01-01T10:02:00.000Z')
  t.equal(retryTimeOf(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 90) }), now).toISOString(), '2026-01-01T10:01:30.000Z')
  t.equal(retryTimeOf(new Headers(), now).toISOString(), '2026-01-01T10:01:00.000Z')
  t.match(rateLimitMessage(new Date(now + 600_000), now), /in 10 minutes/)
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
