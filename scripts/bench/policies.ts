// The organisation rules' evaluation (not a test): the built-in rules (templates/policies) compiled
// to WebAssembly once, then evaluated in process on configurations of the AWS catalog, side by side
// with a baseline of the same configuration's JSON round trip (what handing the input to the
// WebAssembly memory costs at the least). Prints the compile time (cold and cached), then p50 and
// p99 per configuration in ms, and the ratio to the baseline.
//
//   npx tsx scripts/bench/policies.ts [--runs 5000]
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { extractCatalog } from '@ies/processor-lib'
import { catalogView } from '@ies/processor-lib/contract/view'
import { policyWasm } from '../../plugins/policies/bundle.ts'
import { PolicyEvaluator } from '../../plugins/policies/evaluator.ts'
import { policyInput } from '../../plugins/policies/input.ts'
import { opaBinary } from '../check-templates/policies.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5000' } } })
const RUNS = Number(values.runs)
const TEMPLATES = path.join(import.meta.dirname, '..', '..', 'templates')

const catalog = catalogView(await extractCatalog({ templatesDir: TEMPLATES, provider: 'aws' })).catalog
const every = Object.fromEntries(Object.keys(catalog.services).map((key) => [key, { enabled: true }]))
const configurations = {
  'production, every service (defaults)': {
    name: 'shop-prod',
    provider: 'aws',
    region: 'eu-west-1',
    labels: { tier: 'production' },
    services: every,
  },
  'development, every service (defaults)': {
    name: 'shop-dev',
    provider: 'aws',
    region: 'eu-west-1',
    labels: { tier: 'development' },
    services: every,
  },
  'production, no service': { name: 'empty', provider: 'aws', region: 'eu-west-1', labels: { tier: 'production' }, services: {} },
}

const cache = await mkdtemp(path.join(os.tmpdir(), 'ies-bench-policies-'))
const folders = [path.join(TEMPLATES, 'policies')]
let started = performance.now()
const wasm = await policyWasm(folders, opaBinary(), cache)
const cold = performance.now() - started
started = performance.now()
await policyWasm(folders, opaBinary(), cache)
const cached = performance.now() - started
started = performance.now()
const evaluator = await PolicyEvaluator.load(wasm)
const load = performance.now() - started
await rm(cache, { recursive: true, force: true })

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]
const time = (fn: () => unknown) => {
  const out: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    fn()
    out.push(performance.now() - t0)
  }
  return out
}

console.log(
  `compile (opa build -t wasm, ${folders.length} folder): cold ${cold.toFixed(0)} ms, cached ${cached.toFixed(1)} ms; load ${load.toFixed(1)} ms; ${(wasm.byteLength / 1024).toFixed(0)} KiB`,
)
console.log(`${RUNS} evaluations each, in ms\n`)
console.log('| configuration | violations | rules p50 | rules p99 | baseline p50 | baseline p99 | ratio p50 |')
console.log('|---|---:|---:|---:|---:|---:|---:|')
for (const [name, doc] of Object.entries(configurations)) {
  const result = evaluator.evaluate(policyInput(doc, catalog))
  const rules = time(() => evaluator.evaluate(policyInput(doc, catalog)))
  const baseline = time(() => JSON.parse(JSON.stringify(policyInput(doc, catalog))))
  const [r50, r99, b50, b99] = [quantile(rules, 0.5), quantile(rules, 0.99), quantile(baseline, 0.5), quantile(baseline, 0.99)]
  const found = `${result.deny.length} deny, ${result.warn.length} warn`
  console.log(
    `| ${name} | ${found} | ${r50.toFixed(3)} | ${r99.toFixed(3)} | ${b50.toFixed(3)} | ${b99.toFixed(3)} | ${(r50 / b50).toFixed(1)}x |`,
  )
}
