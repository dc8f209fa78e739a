// After a 429 the client holds its requests until the time the server named (each would only be
// refused and push the window further) and says when the caller can try again.
import t from 'tap'
import { ApiError, createApiClient, rateLimitMessage, retryTimeOf } from '@ies/api'

t.test('after a 429 requests wait for the time the server named; the message says when', async (t) => {
  let clock = Date.parse('2026-01-01T10:00:00Z')
  let calls = 0
  const limited: Date[] = []
  const api = createApiClient({
    baseUrl: 'http://ies.test/api',
    auth: { getToken: async () => 't' },
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
