// What the assistant's first request after a start costs the event loop (not a test). A server is
// started in this process as the tests start it (startTestApp); then requests to POST /api/ai/chat
// are sent while `perf_hooks.monitorEventLoopDelay` watches the loop: the first one after the start
// and, side by side, the same request again (the baseline: everything loaded). Then, with
// `--phases`, each part the first request loads is timed alone in this fresh process (compromise's
// import and lexicon, the catalog's view and retrieval index, the rules' load and first
// evaluations, the reading cold and warm), each as the longest loop delay it caused and its wall time.
//
//   npx tsx scripts/bench/assistant-first-request.ts [--phases] [--runs 3]
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { startTestApp } from '../../test/harness/app.ts'

const { values } = parseArgs({ options: { phases: { type: 'boolean', default: false }, runs: { type: 'string', default: '3' } } })

/** The longest loop delay while `fn` runs (and its wall time), in ms. */
async function watched<T>(fn: () => Promise<T>): Promise<{ result: T; maxMs: number; wallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  histogram.enable()
  await new Promise((r) => setTimeout(r, 20))
  const start = performance.now()
  const result = await fn()
  const wallMs = performance.now() - start
  await new Promise((r) => setTimeout(r, 20))
  histogram.disable()
  return { result, maxMs: histogram.max / 1e6, wallMs }
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`

/** The request measured: numbers in words, suggestions the rules judge (the event-loop test's first assistant request). */
const REQUEST = 'enable eks with three nodes, rds keeping backups for two weeks and keep sqs messages for four days'

if (values.phases) {
  // Each part of the first request alone, in the order the request meets them.
  const { extractCatalog } = await import('@ies/processor-lib')
  const { BUNDLED_TEMPLATES_DIR, loadConfig } = await import('@ies/server/config')
  const { catalogView } = await import('@ies/processor-lib/contract/view')
  const { searchCatalog } = await import('../../plugins/ai/catalog-search.ts')
  const { policyWasm } = await import('../../plugins/policies/bundle.ts')
  const { PolicyEvaluator } = await import('../../plugins/policies/evaluator.ts')
  const { policyInput } = await import('../../plugins/policies/input.ts')
  const config = loadConfig({ NODE_ENV: 'test', MONGODB_URI: 'mongodb://127.0.0.1:1/x', AUTH_URL: 'http://127.0.0.1:1' })
  const doc = await extractCatalog({ templatesDir: BUNDLED_TEMPLATES_DIR, provider: 'aws', commit: 'bench' })
  const rows: Array<[string, number, number]> = []
  const phase = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const { result, maxMs, wallMs } = await watched(async () => fn())
    rows.push([name, maxMs, wallMs])
    return result
  }
  const nlp = await phase('compromise: import', async () => (await import('compromise')).default)
  await phase('compromise: first reading (lexicon built)', () => nlp('twenty-one').numbers().get())
  await phase('compromise: a new reading, warm', () => nlp('one hundred and twenty').numbers().get())
  const catalog = await phase('catalog: typed view', () => catalogView(doc).catalog)
  await phase('catalog: retrieval index and first search', () => searchCatalog(catalog, 'eks nodes', { kinds: ['field'] }))
  await phase('catalog: a search, warm', () => searchCatalog(catalog, 'rds backups', { kinds: ['field'] }))
  const { builtinAssistant } = await import('../../plugins/ai/builtin-assistant.ts')
  const reading = (content: string) => () => builtinAssistant({ catalog, messages: [{ role: 'user', content }] })
  await phase('reading: the first request, cold', reading(REQUEST))
  await phase('reading: the same request, warm', reading(REQUEST))
  const wasm = await policyWasm([`${BUNDLED_TEMPLATES_DIR}/policies`], config.policies.opaPath, config.policies.cacheDir)
  const rules = await phase('rules: load the WebAssembly', () => PolicyEvaluator.load(wasm))
  const input = (eks: boolean) =>
    policyInput({ name: 'x', provider: 'aws', region: 'eu-west-1', services: { eks: { enabled: eks } } }, catalog, { team: null })
  await phase('rules: first evaluation', () => rules.evaluate(input(true)))
  await phase('rules: second evaluation', () => rules.evaluate(input(false)))
  await phase('rules: an evaluation, warm', () => rules.evaluate(input(true)))
  console.log('phase | longest loop delay | wall')
  for (const [name, maxMs, wallMs] of rows) console.log(`${name} | ${fmt(maxMs)} | ${fmt(wallMs)}`)
  process.exit(0)
}

const teardowns: Array<() => unknown> = []
const { url, auth } = await startTestApp({ teardown: (fn) => teardowns.push(fn) })
const headers = { ...auth('dev'), 'content-type': 'application/json' }
// The catalog's first read (plugins/catalog's cache) is not the assistant's: it is done first, and shown.
const catalogRead = await watched(async () => (await fetch(`${url}/api/catalog`, { headers })).arrayBuffer())
console.log(`the catalog's first read (GET /api/catalog): longest loop delay ${fmt(catalogRead.maxMs)}, wall ${fmt(catalogRead.wallMs)}`)
const body = JSON.stringify({ messages: [{ role: 'user', content: REQUEST }] })
const chat = async () => {
  const res = await fetch(`${url}/api/ai/chat`, { method: 'POST', headers, body })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`POST /api/ai/chat: ${res.status} ${text.slice(0, 200)}`)
  return text
}
const first = await watched(chat)
const later: Array<{ maxMs: number; wallMs: number }> = []
for (let i = 0; i < Number(values.runs); i++) later.push(await watched(chat))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const base = median(later.map((l) => l.maxMs))
console.log(`first request: longest loop delay ${fmt(first.maxMs)}, wall ${fmt(first.wallMs)}`)
console.log(`later requests (median of ${later.length}): longest loop delay ${fmt(base)}, wall ${fmt(median(later.map((l) => l.wallMs)))}`)
console.log(`ratio first / later (longest loop delay): ${(first.maxMs / base).toFixed(1)}x`)
for (const fn of teardowns.reverse()) await fn()
process.exit(0)
