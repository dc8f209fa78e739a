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

t.test(
  'hardening defaults: the clients whose access tokens open the API, JWKS refetch, YAML and Git time limits, no private destinations',
  async (t) => {
    const config = loadConfig({})
    t.same(config.auth.allowedClients, ['ies-app', 'ies-cli', 'ies-device'], 'the app, the CLI and the device client')
    t.same(
      loadConfig({ AUTH_APP_CLIENT_ID: 'my-app' }).auth.allowedClients,
      ['my-app', 'ies-cli', 'ies-device'],
      'follows AUTH_APP_CLIENT_ID',
    )
    t.same(loadConfig({ AUTH_ALLOWED_CLIENTS: ' a , b ' }).auth.allowedClients, ['a', 'b'], 'AUTH_ALLOWED_CLIENTS is a list')
    t.equal(config.auth.jwksRefetchIntervalMs, 30_000, 'an unknown kid refetches the JWKS at most every 30 s')
    t.equal(config.yamlParseTimeoutMs, 3_000, 'chart values YAML: 3 s per request')
    t.equal(config.push.gitTimeoutMs, 30_000, 'a stalled Git server fails a push after 30 s')
    t.same(config.push.allowedHosts, [], 'pushes reach public addresses only')
    const processor = readServiceConfig({})
    t.same(processor.allowedHosts, [], 'the processor clones from public addresses only')
    t.equal(processor.gitTimeoutMs, 30_000, 'a stalled Git server fails a processor clone after 30 s')
    t.same(
      readServiceConfig({ PROCESSOR_ALLOWED_HOSTS: 'Git.Local, 10.0.0.5' }).allowedHosts,
      ['git.local', '10.0.0.5'],
      'PROCESSOR_ALLOWED_HOSTS',
    )
  },
)
