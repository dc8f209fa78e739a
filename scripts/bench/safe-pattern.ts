// The cost of testing a value against a catalog pattern (not a test): every pattern of the bundled
// AWS catalog, each tested against its field's default, through testPattern (server/src/core/
// safe-pattern.ts). Side by side: the first test of each pattern (compiled, the static safety check,
// the time-boxed match; the baseline) and the tests after it (the pattern's verdict kept). Prints
// the median of the rounds in microseconds per test, and the ratio.
//
//   npx tsx scripts/bench/safe-pattern.ts [--tests 20000] [--rounds 5]
import { parseArgs } from 'node:util'
import { extractCatalog } from '@ies/processor-lib'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { testPattern } from '../../server/src/core/safe-pattern.ts'

const { values } = parseArgs({ options: { tests: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '5' } } })
const TESTS = Number(values.tests)
const ROUNDS = Number(values.rounds)

const catalog = await extractCatalog({ templatesDir: BUNDLED_TEMPLATES_DIR, provider: 'aws', commit: 'bench' })
const fields = [catalog.global, ...Object.values(catalog.services)].flatMap((group) => Object.values(group.fields))
const cases = fields.flatMap((f) =>
  'pattern' in f && typeof f.pattern === 'string' ? [{ pattern: f.pattern, value: String(f.default ?? '') }] : [],
)
if (cases.length === 0) throw new Error('the catalog has no patterns')

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const perTest = (tests: number, fn: (i: number) => void) => {
  const start = performance.now()
  for (let i = 0; i < tests; i++) fn(i)
  return ((performance.now() - start) * 1000) / tests
}
const first: number[] = []
const kept: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  // A pattern never tested before: each case made unique by a group that matches nothing extra.
  const fresh = cases.map((c) => ({ pattern: `(?:${c.pattern})(?:)${'(?:)'.repeat(round)}`, value: c.value }))
  first.push(perTest(fresh.length, (i) => testPattern(fresh[i].pattern, fresh[i].value)))
  kept.push(perTest(TESTS, (i) => testPattern(fresh[i % fresh.length].pattern, fresh[i % fresh.length].value)))
}
const [a, b] = [median(first), median(kept)]
console.log(`${cases.length} patterns, ${TESTS} tests a round, ${ROUNDS} rounds (median)`)
console.log(`first test of a pattern: ${a.toFixed(2)} us; a pattern already tested: ${b.toFixed(2)} us; ratio ${(a / b).toFixed(1)}x`)
