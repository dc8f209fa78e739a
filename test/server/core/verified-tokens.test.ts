// The verified-token cache: an entry lives until the token's expiry and at most the TTL, is bounded
// in number (oldest out first), and nothing is stored for a token that has already expired.
import t from 'tap'
import { VerifiedTokens } from '@ies/server/core/verified-tokens'

function clock(start = 1_000_000_000_000) {
  const c = { ms: start, now: () => c.ms }
  return c
}

t.test('an entry ends at the token expiry or the TTL, whichever is first', async (t) => {
  const c = clock()
  const cache = new VerifiedTokens<string>({ max: 10, ttlMs: 60_000, now: c.now })
  const nowS = c.ms / 1000
  cache.set('short', 'a', nowS + 5)
  cache.set('long', 'b', nowS + 3600)
  t.equal(cache.get('short'), 'a')
  c.ms += 5_000
  t.equal(cache.get('short'), undefined, 'gone when the token expires')
  t.equal(cache.get('long'), 'b')
  c.ms += 55_000
  t.equal(cache.get('long'), undefined, 'gone after the TTL though the token is still valid')
  t.equal(cache.size, 0, 'expired entries are dropped on lookup')
})

t.test('an expired token is not stored', async (t) => {
  const c = clock()
  const cache = new VerifiedTokens<string>({ max: 10, ttlMs: 60_000, now: c.now })
  cache.set('old', 'x', c.ms / 1000 - 1)
  cache.set('now', 'x', c.ms / 1000)
  cache.set('no exp', 'x', Number.NaN)
  t.equal(cache.size, 0)
})

t.test('bounded: the oldest entry makes room', async (t) => {
  const c = clock()
  const cache = new VerifiedTokens<number>({ max: 3, ttlMs: 60_000, now: c.now })
  for (let i = 0; i < 5; i++) cache.set(`token-${i}`, i, c.ms / 1000 + 600)
  t.equal(cache.size, 3)
  t.same(
    [0, 1, 2, 3, 4].map((i) => cache.get(`token-${i}`)),
    [undefined, undefined, 2, 3, 4],
  )
})
