/**
 * The decorator language: the one grammar module. The substituter, the section pass and the
 * catalog extractor all read decorators through this file and nothing else parses them.
 *
 *   # @param   <dot.path> [| key=value]...
 *   # @module  <dot.path> [| key=value]...
 *   # @section <dot.path> begin
 *   # @section <dot.path> end
 */
import { isCommentLine, type Language } from './languages.ts'

export type DecoratorKind = 'param' | 'module' | 'section'

export interface Decorator {
  kind: DecoratorKind
  /** 0-based line index in the file. */
  index: number
  /** Indentation (leading spaces and tabs) of the decorator line. */
  indent: number
  /** The path token (`[\w.-]+`), or '' when missing (then `error` is set). */
  path: string
  /** For @section: begin or end. */
  edge?: 'begin' | 'end'
  /** Raw attribute tail after the path (starting at the first `|`), '' when none. */
  tail: string
  /** The line up to the end of the path token: what remains under TRIM_DECORATOR_ATTRS. */
  head: string
  /** Set when the decorator line is malformed (no path, bad @section edge, text before `|`). */
  error?: string
}

/** Rule 1: path characters. */
export const PATH_CHARS = '[\\w.-]'
const PATH_RE = /^[\w.-]+$/
/** Comment opener, optional spaces, decorator name; the rest of the line in group 4. */
const DECORATOR_RE = /^(\s*(?:#+|\/\/)\s*)@(param|module|section)(?=\s|$)(\s*)(.*)$/
const HEAD_RE = /^([\w.-]+)(.*)$/
/** Rule 3: a value line. Group 1 ends right after the `:` or `=` separator. */
export const VALUE_LINE_RE = /^(\s*(?:-\s+)?[\w.-]+\s*[:=])/

/** Parse one line as a decorator; null when it is not a decorator line of this language. */
export function parseDecoratorLine(line: string, index: number, lang: Language): Decorator | null {
  if (line.indexOf('@') === -1) return null
  const m = DECORATOR_RE.exec(line)
  if (!m) return null
  const opener = m[1].trimStart().replace(/\s+$/, '')
  const commentOpener = opener.startsWith('//') ? '//' : '#'
  if (!lang.commentPrefixes.includes(commentOpener)) return null
  // Only a single comment marker: `# # @param x` is a commented-out decorator, not a decorator.
  if (opener !== '//' && opener !== '#' && !/^#+$/.test(opener)) return null
  const kind = m[2] as DecoratorKind
  const indent = line.length - line.trimStart().length
  const rest = m[4]
  const prefix = line.slice(0, line.length - rest.length)
  const h = HEAD_RE.exec(rest)
  if (!h) {
    return { kind, index, indent, path: '', tail: rest, head: line.replace(/\s+$/, ''), error: `@${kind} without a path` }
  }
  const path = h[1]
  let after = h[2]
  const head = prefix + path
  const dec: Decorator = { kind, index, indent, path, tail: '', head }
  if (kind === 'section') {
    const e = /^\s+(begin|end)\b/.exec(after)
    if (!e) {
      dec.error = `@section ${path} must be followed by begin or end`
      return dec
    }
    dec.edge = e[1] as 'begin' | 'end'
    dec.head = head + e[0]
    after = after.slice(e[0].length)
    if (after.trim() !== '') dec.error = `@section ${path} ${dec.edge} has trailing text`
    return dec
  }
  const bar = after.indexOf('|')
  const between = bar === -1 ? after : after.slice(0, bar)
  if (between.trim() !== '') {
    dec.error = `@${kind} ${path}: unexpected text after the path (attributes follow a "|")`
  }
  dec.tail = bar === -1 ? '' : after.slice(bar)
  return dec
}

/** All decorators of a file, in line order. */
export function scanDecorators(lines: readonly string[], lang: Language): Decorator[] {
  const out: Decorator[] = []
  for (let i = 0; i < lines.length; i++) {
    const d = parseDecoratorLine(lines[i], i, lang)
    if (d) out.push(d)
  }
  return out
}

export function isValidPath(path: string): boolean {
  return PATH_RE.test(path)
}

/**
 * Rule 2/3: the value line a @param marks. Starting below the decorator, comment lines are
 * skipped; the first other line must be a value line. A blank line, another decorator, or any
 * other line makes the decorator inert (returns a reason instead of an index).
 */
export function findValueLine(
  lines: readonly string[],
  decoratorIndex: number,
  lang: Language,
): { index: number; match: string } | { reason: string } {
  for (let i = decoratorIndex + 1; i < lines.length; i++) {
    const line = stripCR(lines[i])
    if (line.trim() === '') {
      if (i === lines.length - 1) break // what follows the final newline is not a line
      return { reason: `blank line ${i + 1} between the decorator and its value line` }
    }
    if (parseDecoratorLine(line, i, lang)) return { reason: `another decorator on line ${i + 1} before a value line` }
    if (isCommentLine(line, lang)) continue
    const m = VALUE_LINE_RE.exec(line)
    if (m) return { index: i, match: m[1] }
    return { reason: `line ${i + 1} is not a value line (key: or key=)` }
  }
  return { reason: 'no value line before the end of the file' }
}

function stripCR(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

/** Attributes of a @param / @module tail (rules 8, 9). */
export interface AttributeParse {
  attrs: Record<string, string>
  /** Parsed `options`, when present and valid. */
  options?: unknown
  errors: { code: 'BAD_ATTRIBUTE' | 'DUPLICATE_ATTRIBUTE' | 'BAD_OPTIONS'; message: string }[]
}

const ATTR_RE = /^\s*([\w.-]+)\s*=(.*)$/s

/**
 * Parse an attribute tail `| a=b | c=d`. Every `|` splits (rule 9): a value that contains one
 * leaves a segment that is not key=value. `options` is strict JSON; every other value a string.
 */
export function parseAttributes(tail: string): AttributeParse {
  const result: AttributeParse = { attrs: {}, errors: [] }
  if (tail.trim() === '') return result
  const segments = tail.split('|').slice(1) // the tail starts with '|'
  let previousKey: string | null = null
  for (const seg of segments) {
    const m = ATTR_RE.exec(seg)
    if (!m) {
      result.errors.push({ code: 'BAD_ATTRIBUTE', message: notKeyValue(seg.trim(), previousKey) })
      previousKey = null
      continue
    }
    const key = m[1]
    previousKey = key
    const value = m[2].trim()
    if (Object.prototype.hasOwnProperty.call(result.attrs, key)) {
      result.errors.push({ code: 'DUPLICATE_ATTRIBUTE', message: `attribute "${key}" is given twice` })
      continue
    }
    result.attrs[key] = value
    if (key === 'options') {
      try {
        result.options = JSON.parse(value)
      } catch (e) {
        result.errors.push({ code: 'BAD_OPTIONS', message: `options is not valid JSON: ${(e as Error).message}` })
      }
    }
  }
  return result
}

/**
 * The message for a segment that is not key=value. Rule 9: every `|` splits the decorator, so a
 * segment that follows an attribute is most often the tail of that attribute's value (a regex
 * alternation in `pattern`); the message says so.
 */
function notKeyValue(segment: string, previousKey: string | null): string {
  const base = `attribute segment "${segment}" is not key=value`
  if (previousKey === 'pattern') {
    return `${base}: the "|" before it splits the decorator (rule 9), so it looks like the rest of a regex alternation in pattern=; alternation is not supported in a pattern (use a character class, "?" or a count)`
  }
  if (previousKey) return `${base}: a "|" splits the decorator (rule 9), so a "|" inside the value of ${previousKey}= ends it here`
  return base
}
