// Catalog patterns cannot freeze the wizard: the browser has no way to time-box a RegExp, so
// the catalog contract's pattern-safety.ts (processor-lib/src/contract) checks each pattern statically; an unsafe one is dropped like a
// pattern that does not compile (rule 2: only that field's validation), with a warning the wizard
// shows and logs. The real catalog's patterns all stay active, and the tested text is bounded.
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import {
  checkPattern,
  compilePattern,
  prepareCatalog,
  validateField,
  type WizardField,
} from '../../../../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'
import { loadCatalog } from '../../../../../desktop/src/renderer/lib/catalog/source.ts'
import { PATTERN_MAX_LENGTH, VALUE_MAX_LENGTH, checkPatternSafety } from '../../../../../processor-lib/src/contract/pattern-safety.ts'
import staticCatalog from '../../../../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..')

function patternsOf(doc: unknown): string[] {
  const out = new Set<string>()
  const walk = (v: unknown) => {
    if (v === null || typeof v !== 'object') return
    const o = v as Record<string, unknown>
    if (typeof o.pattern === 'string') out.add(o.pattern)
    Object.values(o).forEach(walk)
  }
  walk(doc)
  return [...out]
}

const doc = (fields: Record<string, unknown>) => ({
  schemaVersion: 1,
  commit: 'c',
  global: { fields: {} },
  errors: [],
  services: { svc: { displayName: 'Svc', fields: { enabled: { type: 'toggle', default: true }, ...fields } } },
})

t.test('every pattern of the real catalog (extracted from templates/) and of the static catalog stays active', async (t) => {
  const live = JSON.parse(
    execFileSync(process.execPath, ['processor-lib/bin/ies-processor.js', '--extract-catalog', 'templates', '--provider', 'aws'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  )
  const patterns = [...new Set([...patternsOf(live), ...patternsOf(staticCatalog)])]
  t.ok(patterns.length >= 15, `${patterns.length} distinct patterns`)
  t.ok(
    patterns.some((p) => p.includes('[.])+')),
    'the domain pattern (a quantified group with a `.` delimiter) is among them',
  )
  for (const p of patterns) {
    t.same(checkPatternSafety(p), { safe: true }, p)
    t.ok(compilePattern(p), `${p} is kept by the wizard`)
  }
  for (const catalog of [prepareCatalog(live), prepareCatalog(staticCatalog)]) {
    t.same(catalog.warnings, [], 'no field was adjusted')
  }
  const domain = prepareCatalog(live).global.domain
  t.ok(domain?.pattern, 'the domain field keeps its pattern')
  t.equal(validateField(domain!, 'app.example.com'), null)
  t.ok(validateField(domain!, 'app..example.com'), 'refused')
})

t.test('classic catastrophic patterns are dropped quickly; only that field loses its check', async (t) => {
  const evil = [
    '(a+)+',
    '(a+)+$',
    '(a|a)*',
    '(a*)*b',
    '(.*a){20}',
    '^([a-z]+)+$',
    '(a|aa)*',
    '^(\\w+\\s?)*$',
    '(x+x+)+y',
    '\\d*\\d*\\d*x',
    '(?=(a+)+)b',
  ]
  for (const p of evil) {
    const started = Date.now()
    const verdict = checkPatternSafety(p)
    t.equal(verdict.safe, false, `${p}: ${'reason' in verdict ? verdict.reason : ''}`)
    t.ok(Date.now() - started < 200, `${p} judged quickly`)
  }
  const fields = Object.fromEntries(evil.map((p, i) => [`evil${i}`, { type: 'text', pattern: p }]))
  const catalog = prepareCatalog(doc({ ...fields, good: { type: 'text', pattern: '[a-z]+' } }))
  const byKey = Object.fromEntries(catalog.services[0].fields.map((f) => [f.key, f]))
  const started = Date.now()
  for (const [i] of evil.entries()) {
    t.equal(byKey[`evil${i}`].pattern, undefined)
    t.equal(validateField(byKey[`evil${i}`], 'a'.repeat(5000) + '!'), null, 'the value is accepted: that field is not validated')
  }
  t.ok(Date.now() - started < 200, 'validation answered at once')
  t.ok(byKey.good.pattern, 'the other field keeps its check')
  t.ok(validateField(byKey.good, 'ABC'), 'refused')
  t.equal(catalog.warnings.length, evil.length)
  t.match(
    catalog.warnings[0],
    /^services\.svc\.evil0: pattern "\(a\+\)\+" could freeze the page \(exponential backtracking: [^()]*\); this field is not validated$/,
  )
})

t.test('safe shapes pass: delimited repetition, unambiguous loops, one quadratic pair', async (t) => {
  for (const p of [
    '(aa)*',
    '([0-9]+[.])+[0-9]+',
    '(-[a-z]+)+-[0-9]',
    '[a-z]+(,[a-z]+)*',
    '\\d*\\d*x',
    'a{2,}b{2,}',
    '[^]*',
    '(?:ab|cd)*',
    '[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]',
  ]) {
    t.same(checkPatternSafety(p), { safe: true }, p)
  }
})

t.test('what cannot be checked counts as unsafe: back-references, over-long patterns', async (t) => {
  t.match(checkPatternSafety('(a)\\1'), { safe: false, reason: /back-references/ })
  t.match(checkPattern('a'.repeat(PATTERN_MAX_LENGTH + 1)), { problem: /longer than/ })
  t.match(checkPattern('db\\.(unclosed'), { problem: 'does not compile' })
})

t.test('a long input is bounded: it is never run against the pattern', async (t) => {
  const catalog = prepareCatalog(doc({ name: { type: 'text', pattern: '[a-z]*' } }))
  const field = catalog.services[0].fields[0] as WizardField
  let calls = 0
  const real = field.pattern!
  field.pattern = new (class extends RegExp {
    override test(s: string) {
      calls++
      return super.test(s)
    }
  })(real.source)
  t.equal(validateField(field, 'a'.repeat(VALUE_MAX_LENGTH)), null, 'up to the bound the pattern decides')
  t.equal(calls, 1)
  t.equal(validateField(field, 'a'.repeat(VALUE_MAX_LENGTH + 1)), `Must be at most ${VALUE_MAX_LENGTH} characters`)
  t.equal(calls, 1, 'the over-long value was not tested')
})

t.test('the catalog source logs what the client adjusted (a console warning beside the wizard notice)', async (t) => {
  const logged: string[] = []
  const loaded = await loadCatalog({
    useRuntimeCatalog: true,
    fetchCatalog: async () => ({ document: doc({ x: { type: 'text', pattern: '(a+)+' } }) }),
    staticCatalog,
    log: (m) => logged.push(m),
  })
  t.equal(loaded.source, 'runtime')
  t.match(logged, [/^catalog: services\.svc\.x: pattern "\(a\+\)\+" could freeze the page/])
})

t.test('the fallback notice has no nested brackets', async (t) => {
  const loaded = await loadCatalog({
    useRuntimeCatalog: true,
    fetchCatalog: async () => {
      throw new Error('The server could not be reached (Failed to fetch)')
    },
    staticCatalog,
    log: () => {},
  })
  t.equal(
    loaded.notice,
    'The live service catalog could not be loaded: the server could not be reached (Failed to fetch). The wizard uses the built-in catalog, which may lag behind the templates.',
  )
})
