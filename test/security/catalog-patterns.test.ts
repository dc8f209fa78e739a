// A pathological regex in a template's `pattern` (catastrophic backtracking) reaches two places:
// the server's assistant (server/src/core/safe-pattern.ts, time-boxed) and the wizard in the client
// (desktop/src/renderer/lib/catalog/prepared-catalog.ts, validateField; the browser cannot time-box a RegExp, so the shared
// static check of the catalog contract's pattern-safety.ts drops such a pattern like one that does not
// compile). Each is run in a child process with a deadline, so a stall fails the test instead of
// hanging it.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const EVIL = '(a+)+$'
const VALUE = 'a'.repeat(40) + '!'

/** Runs an ES module snippet with tsx; returns its stdout, or null when it did not finish in time. */
function runWithDeadline(source: string, deadlineMs: number): { out: string | null; ms: number } {
  const started = Date.now()
  const res = spawnSync(process.execPath, ['--import=tsx', '--input-type=module', '-e', source], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: deadlineMs,
    killSignal: 'SIGKILL',
  })
  return { out: res.status === 0 ? res.stdout.trim() : null, ms: Date.now() - started }
}

t.test('control: the pathological pattern really stalls an unguarded RegExp', async (t) => {
  const { out } = runWithDeadline(`console.log(new RegExp(${JSON.stringify(EVIL)}).test(${JSON.stringify(VALUE)}))`, 3000)
  t.equal(out, null, 'a plain RegExp does not finish in 3 s (the cases below would see a stall)')
})

t.test('server: the assistant judges it unsafe (static check first, its time box behind it), and answers at once afterwards', async (t) => {
  const { out, ms } = runWithDeadline(
    `import { testPattern } from './server/src/core/safe-pattern.ts'
     const first = testPattern(${JSON.stringify(EVIL)}, ${JSON.stringify(VALUE)})
     const started = Date.now()
     const again = testPattern(${JSON.stringify(EVIL)}, ${JSON.stringify(VALUE)})
     console.log(JSON.stringify({ first, again, againMs: Date.now() - started }))`,
    10_000,
  )
  t.ok(out, `finished (${ms} ms)`)
  const verdict = JSON.parse(out ?? '{}')
  t.equal(verdict.first, 'unsafe')
  t.equal(verdict.again, 'unsafe')
  t.ok(verdict.againMs < 50, 'the second test answers without running the pattern')
})

t.test('client: the wizard validates a field with the pattern without stalling', async (t) => {
  const { out, ms } = runWithDeadline(
    `import { prepareCatalog, validateField } from './desktop/src/renderer/lib/catalog/prepared-catalog.ts'
     const catalog = prepareCatalog({ schemaVersion: 1, commit: 'c', global: { fields: {} }, errors: [],
       services: { evil: { displayName: 'Evil', fields: { name: { type: 'text', pattern: ${JSON.stringify(EVIL)} } } } } })
     const field = catalog.services.find((s) => s.key === 'evil').fields.find((f) => f.key === 'name')
     const started = Date.now()
     const message = validateField(field, ${JSON.stringify(VALUE)})
     console.log(JSON.stringify({ message, ms: Date.now() - started, hasPattern: field.pattern !== undefined, warnings: catalog.warnings }))`,
    5_000,
  )
  t.ok(out !== null, `validateField finished (${ms} ms)`)
  const res = JSON.parse(out ?? '{}')
  t.equal(res.message, null, "only that field's validation is dropped: the value is accepted")
  t.equal(res.hasPattern, false, 'the pattern is not kept')
  t.ok(res.ms < 50, `validateField answered at once (${res.ms} ms)`)
  t.match(
    res.warnings,
    [/services\.evil\.name: pattern .* could freeze the page .*; this field is not validated/],
    'the wizard is told why',
  )
})
