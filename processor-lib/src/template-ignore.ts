/**
 * The files of a templates tree that are not output: `.iesignore` at the tree's root lists them in
 * gitignore syntax (read by the `ignore` library, the matcher ESLint and many tools use, so negation,
 * directory patterns and escapes behave as in Git). The ignore file itself is never output. Every
 * place that turns a tree into output applies it: processing (`processFiles`), the gate, the author
 * checks and the processor service, so a template author's notes (the authors' guide) stay in the
 * templates repository and never reach a generated one.
 */
import ignore, { type Ignore } from 'ignore'
import { finding, type Finding } from './findings.ts'

/** The ignore file, relative to the templates root. */
export const IGNORE_FILE = '.iesignore'

interface PathEntry {
  path: string
}

interface Pattern {
  line: number
  text: string
}

/** The pattern lines of an ignore file (blank lines and `#` comments left out), with their 1-based line numbers. */
export function ignorePatterns(text: string): Pattern[] {
  const out: Pattern[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line.trim() === '' || line.startsWith('#')) return
    out.push({ line: i + 1, text: line })
  })
  return out
}

/** The ignore file's text among the entries, or undefined. */
function ignoreText(entries: readonly (PathEntry & { content?: Buffer })[]): string | undefined {
  const file = entries.find((e) => e.path === IGNORE_FILE)
  return file?.content?.toString('utf8')
}

/**
 * The entries that are output: without the ignore file and what it lists. Entries are
 * `{ path, content }` with `/` paths relative to the templates root (the ignore file's content is read
 * from them).
 */
export function outputEntries<T extends PathEntry & { content?: Buffer }>(entries: readonly T[]): T[] {
  const file = entries.find((e) => e.path === IGNORE_FILE)?.content
  if (file === undefined) return [...entries]
  let matcher = matchers.get(file)
  if (!matcher) {
    matcher = ignore().add(file.toString('utf8'))
    matchers.set(file, matcher)
  }
  const ignored = matcher
  return entries.filter((e) => e.path !== IGNORE_FILE && !ignored.ignores(e.path))
}

/** Whether an ignore file's text leaves out a path (`/` separators, relative to the templates root). */
export function isIgnored(ignoreFileText: string, path: string): boolean {
  return path === IGNORE_FILE || ignore().add(ignoreFileText).ignores(path)
}

/** Compiled ignore files by their bytes: a templates source hands the same buffers to every generation. */
const matchers = new WeakMap<Buffer, Ignore>()

/**
 * The author check of the ignore file: a pattern that matches no file of the tree is a mistake (a
 * typo, or a file since renamed), reported at its line. A negation (`!pattern`) is checked against
 * the files the patterns before it ignore.
 */
export function ignoreFindings(entries: readonly (PathEntry & { content?: Buffer })[]): Finding[] {
  const text = ignoreText(entries)
  if (text === undefined) return []
  const paths = entries.map((e) => e.path).filter((p) => p !== IGNORE_FILE)
  const out: Finding[] = []
  const before = ignore()
  for (const p of ignorePatterns(text)) {
    const negated = p.text.startsWith('!')
    const alone = ignore().add(negated ? p.text.slice(1) : p.text)
    const candidates = negated ? paths.filter((path) => before.ignores(path)) : paths
    if (!candidates.some((path) => alone.ignores(path))) {
      out.push(
        finding(
          'IGNORE_UNMATCHED',
          'warning',
          IGNORE_FILE,
          p.line,
          null,
          negated ? `"${p.text}" re-includes no file the patterns above it ignore` : `"${p.text}" matches no file of the tree`,
        ),
      )
    }
    before.add(p.text)
  }
  return out
}

/** A heading for template authors, or a decorator written out with its attributes: the authors' guide, not a hand-over. */
const AUTHORS_GUIDE_SIGNS: readonly { re: RegExp; says: string }[] = [
  { re: /^#{1,6}\s.*\b(template authors?|authors'? guide)\b/im, says: 'a heading for template authors' },
  { re: /^\s*#\s*@(param|module)\s+[\w.-]+\s*\|/m, says: 'a decorator written out with its attributes' },
  { re: /^\s*#\s*@section\s+[\w.-]+\s+(begin|end)\b/m, says: 'a @section decorator written out' },
]

/**
 * The author check of the generated repository's README: a README the generation outputs (any
 * `README.md` among the output files) is the hand-over of the generated repository, never the template
 * authors' guide, which belongs in a file the ignore file lists.
 */
export function handoverFindings(outputs: readonly (PathEntry & { content: Buffer })[]): Finding[] {
  const out: Finding[] = []
  for (const f of outputs) {
    if (!/(^|\/)readme\.md$/i.test(f.path)) continue
    const text = f.content.toString('utf8')
    for (const sign of AUTHORS_GUIDE_SIGNS) {
      const m = sign.re.exec(text)
      if (!m) continue
      const line = text.slice(0, m.index).split('\n').length + (m[0].startsWith('\n') ? 1 : 0)
      out.push(
        finding('AUTHORS_GUIDE_OUTPUT', 'error', f.path, line, null, `the generated repository would get the authors' guide: ${sign.says}`),
      )
      break
    }
  }
  return out
}
