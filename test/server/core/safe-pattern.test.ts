// Catalog patterns cannot stall the server: a catastrophic pattern is refused by the shared static
// check without running, or (should one slip past it) cut off by the time box and then refused at once; an uncompilable or oversized pattern drops only its own check; suggestions
// for a field whose pattern cannot be evaluated are dropped. Also: the AI configuration.
import t from 'tap'
import type { Catalog } from '@ies/processor-lib'
import { loadConfig } from '@ies/server/config'
import {
  MATCH_TIMEOUT_MS,
  PATTERN_MAX_LENGTH,
  PATTERNS_KEPT,
  VALUE_MAX_LENGTH,
  compilePattern,
  staticChecksRun,
  testPattern,
} from '../../../server/src/core/safe-pattern.ts'
import { acceptSuggestions } from '../../../plugins/ai/suggestions.ts'
import { catalogView } from '../../../processor-lib/src/contract/view.ts'

const EVIL = '^(a+)+$'
const attack = 'a'.repeat(40) + '!'

t.test('a catastrophic pattern is refused by the static check, without running it', async (t) => {
  const started = Date.now()
  t.equal(testPattern(EVIL, attack), 'unsafe')
  t.ok(Date.now() - started < 50, 'no time box was spent')
  for (const evil of ['^(a|a)*$', '^(a*)*b$', '^(.*a){20}$']) t.equal(testPattern(evil, 'a'.repeat(40) + '!'), 'unsafe', evil)
})

t.test('without the static check, a catastrophic pattern is cut off by the time box, then refused without running', async (t) => {
  const EVIL = '^(b+)+$'
  const attack = 'b'.repeat(40) + '!'
  let started = Date.now()
  t.equal(testPattern(EVIL, attack, { staticCheck: false }), 'unsafe')
  t.ok(Date.now() - started < 2 * MATCH_TIMEOUT_MS + 800, `first evaluation stops after two time boxes of ${MATCH_TIMEOUT_MS} ms`)
  started = Date.now()
  for (let i = 0; i < 100; i++) t.equal(testPattern(EVIL, 'bbb', { staticCheck: false }), 'unsafe')
  t.ok(Date.now() - started < 200, 'later evaluations do not run the pattern')
})

t.test('ordinary patterns answer match / no-match', async (t) => {
  t.equal(testPattern('^[a-z]{2}(-[a-z]+)+-[0-9]$', 'eu-west-1'), 'match')
  t.equal(testPattern('^[a-z]{2}(-[a-z]+)+-[0-9]$', 'eu-west'), 'no-match')
  t.equal(testPattern('^[a-z0-9][a-z0-9._/-]*(,[a-z0-9][a-z0-9._/-]*)*$', 'app,web/api'), 'match')
  const domain = '^(([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.])+[a-z]{2,63})?$'
  t.equal(testPattern(domain, 'app.example.com'), 'match', 'the domain pattern (a quantified group with a delimiter) stays active')
  t.equal(testPattern(domain, 'app..example.com'), 'no-match')
})

t.test("a pattern's safety verdict is reached once and kept, in a bounded cache", async (t) => {
  const pattern = '^[a-z]{3}-cached-[0-9]+$'
  const checks = staticChecksRun()
  const re = compilePattern(pattern)
  t.equal(staticChecksRun(), checks, 'compiling asks no verdict')
  let matched = 0
  for (let i = 0; i < 1000; i++) if (testPattern(pattern, `abc-cached-${i}`) === 'match') matched++
  t.equal(matched, 1000)
  t.equal(staticChecksRun(), checks + 1, '1000 tests of one pattern: one static check')
  t.equal(compilePattern(pattern), re, 'and one compiled pattern')
  t.equal(testPattern(pattern, 'nope'), 'no-match', 'the verdict is per pattern, the match per value')

  // More patterns than the cache keeps: the oldest is dropped, its verdict reached again when asked.
  for (let i = 0; i < PATTERNS_KEPT; i++) testPattern(`^x${i}$`, 'x')
  const before = staticChecksRun()
  t.equal(testPattern(pattern, 'abc-cached-1'), 'match')
  t.equal(staticChecksRun(), before + 1, 'a pattern pushed out by PATTERNS_KEPT others is checked again')
  t.not(compilePattern(pattern), re, 'and compiled again: the cache holds at most PATTERNS_KEPT patterns')
})

t.test('uncompilable and oversized patterns are not evaluated; oversized values fail', async (t) => {
  t.equal(testPattern('([a-z', 'abc'), 'uncompilable')
  t.equal(testPattern('a'.repeat(PATTERN_MAX_LENGTH + 1), 'a'), 'uncompilable')
  t.equal(testPattern('^a*$', 'a'.repeat(VALUE_MAX_LENGTH + 1)), 'no-match')
})

t.test('suggestions against a hostile catalog', async (t) => {
  const text = (pattern: string) => ({ displayName: 'X', type: 'text' as const, pattern, default: 'a' })
  const doc: Catalog = {
    schemaVersion: 1,
    commit: 'test',
    global: { fields: { name: text('^[a-z][a-z0-9-]{2,49}$') } },
    services: {
      evil: {
        displayName: 'Evil',
        fields: { enabled: { displayName: 'Enabled', type: 'toggle', default: false }, slow: text('^([a-z]+)+$'), broken: text('([') },
      },
      hidden: {
        displayName: 'Hidden',
        available: 'false',
        fields: { enabled: { displayName: 'Enabled', type: 'toggle', default: false } },
      },
    },
    errors: [],
  }
  const catalog = catalogView(doc).catalog
  const started = Date.now()
  const { suggestions, dropped } = acceptSuggestions(catalog, [
    { path: 'services.evil.slow', value: 'a'.repeat(40) + '1', reason: 'stall attempt' },
    { path: 'services.evil.slow', value: 'abc', reason: 'same field, now known unsafe' },
    { path: 'services.evil.broken', value: 'anything', reason: 'a pattern that does not compile drops only its check' },
    { path: 'services.hidden.enabled', value: true, reason: 'available=false' },
    { path: 'services.evil.enabled', value: true, reason: 'fine' },
    { path: 'name', value: 'ok-name', reason: 'fine' },
    { path: 'name', value: 'second', reason: 'duplicate path' },
  ])
  t.ok(Date.now() - started < 2 * MATCH_TIMEOUT_MS + 1000, 'the hostile pattern did not stall the check')
  t.same(
    suggestions.map((s) => s.path),
    ['services.evil.broken', 'services.evil.enabled', 'name'],
  )
  t.equal(dropped, 4)
})

t.test('AI configuration', async (t) => {
  const none = loadConfig({})
  t.same(none.ai, { baseUrl: undefined, apiKey: undefined, model: undefined, timeoutMs: 30_000 })
  const set = loadConfig({ AI_BASE_URL: 'http://127.0.0.1:9/v1/', AI_API_KEY: 'k', AI_MODEL: 'm', AI_TIMEOUT_MS: '500' })
  t.same(set.ai, { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', model: 'm', timeoutMs: 500 })
  t.throws(() => loadConfig({ AI_BASE_URL: 'http://127.0.0.1:9/v1' }), { message: /AI_MODEL is required/ }, 'a model name is required')
  t.throws(
    () => loadConfig({ AI_BASE_URL: 'ftp://x', AI_MODEL: 'm' }),
    { message: /AI_BASE_URL must be an http/ },
    'an http(s) URL is required',
  )
})
