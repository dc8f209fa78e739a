// The spec's defaults, as a fresh deployment gets them with no environment variables set (the test
// harness overrides several of them, so nothing else would notice a changed default).
import t from 'tap'
import { loadConfig } from '@ies/server/config'
import { readServiceConfig } from '@ies/processor-lib/service/config'

t.test('the server: spec limits, catalog TTL and identity-provider clients', async (t) => {
  const config = loadConfig({})
  t.same(
    { ...config.rateLimit, redisUrl: undefined },
    { ipMax: 100, ipWindowMs: 15 * 60 * 1000, userMax: 1000, userWindowMs: 60 * 60 * 1000, redisUrl: undefined },
    'rate limits: 100 per IP per 15 minutes, 1000 per user per hour',
  )
  t.equal(config.catalog.ttlMs, 5 * 60 * 1000, 'CATALOG_CACHE_TTL_MS defaults to 5 minutes')
  t.equal(config.host, '127.0.0.1', 'listens on loopback unless told otherwise')
  t.equal(config.auth.url, undefined, 'no AUTH_URL: the embedded identity provider')
})

t.test('the processor service: port 8000, decorator tails kept unless TRIM_DECORATOR_ATTRS=1', async (t) => {
  const config = readServiceConfig({})
  t.equal(config.port, 8000)
  t.equal(config.trimDecoratorAttrs, false)
  t.equal(readServiceConfig({ TRIM_DECORATOR_ATTRS: '1' }).trimDecoratorAttrs, true)
  t.equal(readServiceConfig({ TRIM_DECORATOR_ATTRS: '0' }).trimDecoratorAttrs, false)
})
