// Docs and comments say what and why, never the history of the work: no session, round or issue
// numbers ("session 9", "round 3", "issue 21", "issues 14 and 18", a `#123` reference in a comment),
// no "was X, now Y" timing notes ("now 20 ms (was 300 ms)", "down from 2 s"): measured figures and
// design history belong in docs/internals/ (not scanned for timings).
// Scanned: README.md, every Markdown file outside templates/ (the template authors' pages are
// scanned once they live in docs/), and every source file's comments and test names. Legitimate
// numbers stay legal: links (another project's issue URL), command-line flags (`--rounds 3`),
// colours (`color:#222`), HTTP status codes. The README also stays short and self-contained.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
/** This file spells out the patterns it looks for. */
const SELF = path.relative(ROOT, fileURLToPath(import.meta.url))

/** "session 9", "Round 3", "issue #21", "issues 14, 15 and 18"; not `--rounds 3`. */
const WORK_NUMBER = /(?<![\w-])(?:sessions?|rounds?|issues?)\s+#?\d+/gi
/** A bare `#123` reference (a comment's "see #12"); not `color:#222`, `PKCS#8` or a URL fragment. */
const HASH_NUMBER = /(?<![\w&#/:'"`=-])#\d+\b/g
const URL = /\bhttps?:\/\/\S+/g
const DURATION = String.raw`(?:about\s+|~)?\d[\d.,]*\s*(?:ms|s|seconds?|minutes?)\b`
/** A timing note told as a change: "was 300 ms, now 20 ms", "now 20 ms (was 300 ms)", "down from 2 s". */
const TIMING_HISTORY = new RegExp(
  String.raw`\b(?:was|used to (?:be|take))\s+${DURATION}(?=.*\bnow\b)|\bnow\b.*\((?:was|from)\s+${DURATION}\)|\b(?:down|up)\s+from\s+${DURATION}`,
  'gi',
)
const CODE = /\.(?:ts|tsx|js|mjs|cjs|sh|css|html|ya?ml|tf|hcl|py|go)$/

/** The comment part of a source line (after `//`, `/*`, a leading `*` or `#`), or '' when it has none. */
export function commentOf(line: string): string {
  const match = /(?:^|\s)(?:\/\/|\/\*|<!--)(.*)$/.exec(line) ?? /^\s*(?:\*|#)(.*)$/.exec(line)
  return match ? match[1] : ''
}

/** Every history reference in a text: `markdown` scans all of it, otherwise numbers anywhere and `#123` in comments. */
export function historyIn(text: string, kind: 'markdown' | 'code', timings = true): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(URL, '')
    const scope = kind === 'markdown' ? line : commentOf(line)
    const matches = [...line.matchAll(WORK_NUMBER), ...scope.matchAll(HASH_NUMBER), ...(timings ? scope.matchAll(TIMING_HISTORY) : [])]
    for (const m of matches) found.push({ line: i + 1, text: m[0] })
  })
  return found
}

/** An extensionless script (`.ci/run`): it starts with `#!`. */
function isScript(file: string): boolean {
  return !path.basename(file).includes('.') && readFileSync(path.join(ROOT, file), 'utf8').startsWith('#!')
}

type Scanned = { file: string; kind: 'markdown' | 'code' }

function scannedFiles(): Scanned[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  return listed
    .split('\n')
    .filter((file) => file && file !== SELF && !file.startsWith('node_modules/') && !file.startsWith('.tools/'))
    .flatMap((file): Scanned[] => {
      if (file.endsWith('.md')) return file.startsWith('templates/') ? [] : [{ file, kind: 'markdown' }]
      return CODE.test(file) || isScript(file) ? [{ file, kind: 'code' }] : []
    })
}

t.test('the patterns catch history and leave legitimate numbers alone', async (t) => {
  const hits = (text: string, kind: 'markdown' | 'code' = 'markdown') => historyIn(text, kind).map((h) => h.text)
  t.same(hits('measured in session 9'), ['session 9'])
  t.same(hits('Round 3 found it'), ['Round 3'])
  t.same(hits('before issue 21 it failed'), ['issue 21'])
  t.same(hits('(issues 14, 15 and 18)'), ['issues 14'])
  t.same(hits('// fixed in #123', 'code'), ['#123'])
  t.same(hits(' * see #45 for why', 'code'), ['#45'])
  t.same(hits('`npx tsx scripts/bench/api.ts --rounds 3`'), [])
  t.same(hits('see https://github.com/FerretDB/FerretDB/issues/4081#issuecomment-1'), [])
  t.same(hits("body{color:#222} const s = 'a#1'", 'code'), [])
  t.same(hits('a 429 answers RATE_LIMITED, PKCS#8 keys, three rounds of 5 s'), [])
  t.same(hits('// the list: now 20 ms (was 300 ms)', 'code'), ['now 20 ms (was 300 ms)'])
  t.same(hits('// was 2 s, now 150 ms', 'code'), ['was 2 s'])
  t.same(hits('the status read, down from 1.5 s'), ['down from 1.5 s'])
  t.same(hits('// a flow map of 600 KB takes 14 s: parse it in a worker', 'code'), [])
  t.same(hits('const was = 3 // now 2 s ok: no comment names a change', 'code'), [])
})

t.test('no docs page, README or code comment names a session, round or issue number, or tells a timing as a change', async (t) => {
  const offences: string[] = []
  const files = scannedFiles()
  for (const { file, kind } of files) {
    const timings = !file.startsWith('docs/internals/')
    for (const hit of historyIn(readFileSync(path.join(ROOT, file), 'utf8'), kind, timings))
      offences.push(`${file}:${hit.line}: ${hit.text}`)
  }
  t.ok(files.length > 100, `scanned ${files.length} files`)
  t.same(offences, [], 'say what and why instead (measured figures and design history go to docs/internals/)')
})

t.test('the README is short and points at nothing outside the repository', async (t) => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const lines = readme.trimEnd().split('\n').length
  t.ok(lines <= 200, `README.md has ${lines} lines (at most 200)`)
  t.notMatch(readme, /(?:^|[\s(`'"])\.\.\//m, 'no link or path above the repository')
  t.match(readme, /```sh\nELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci && npm start\nELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci && npm test\n```/)
})
