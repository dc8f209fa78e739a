/**
 * The substituter: processes one file's text. Sections first (which lines are disabled), then
 * every live @param replaces the value after its value line's `key:` / `key=`. Untouched bytes,
 * line endings and the final newline (or its absence) are preserved. A file with an `error`
 * finding is refused as a whole: no content is returned for it.
 */
import { findValueLine, scanDecorators, type Decorator } from './decorators.ts'
import { finding, type Finding } from './findings.ts'
import type { Language } from './languages.ts'
import { ABSENT, lookup } from './lookup.ts'
import { commentOut, planSections } from './sections.ts'
import { indentOf, serializeValue, splitValue, UnserializableValue, yamlPlainSafe } from './values.ts'

export interface ProcessFileOptions {
  /** Strip attribute tails of decorator lines (TRIM_DECORATOR_ATTRS=1). */
  trimDecoratorAttrs?: boolean
}

export interface ProcessFileResult {
  /** The processed text, or null when the file is refused. */
  content: string | null
  findings: Finding[]
}

/** Split into lines without terminators; `cr[i]` records a CRLF ending. The last element is what follows the last `\n`. */
function splitLines(text: string): { lines: string[]; cr: Uint8Array } {
  const lines = text.split('\n')
  const cr = new Uint8Array(lines.length)
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]
    if (l.length > 0 && l.charCodeAt(l.length - 1) === 13) {
      lines[i] = l.slice(0, -1)
      cr[i] = 1
    }
  }
  return { lines, cr }
}

function joinLines(lines: string[], cr: Uint8Array): string {
  let out = ''
  const last = lines.length - 1
  for (let i = 0; i < lines.length; i++) {
    out += lines[i]
    if (cr[i]) out += '\r'
    if (i !== last) out += '\n'
  }
  return out
}

export function processFile(file: string, text: string, lang: Language, config: unknown, opts: ProcessFileOptions = {}): ProcessFileResult {
  if (text.indexOf('@') === -1) return { content: text, findings: [] }
  const { lines, cr } = splitLines(text)
  const decorators = scanDecorators(lines, lang)
  if (decorators.length === 0) return { content: text, findings: [] }

  const plan = planSections(decorators, lines.length, config, file)
  const findings = plan.findings
  const sectionsBroken = findings.length > 0
  const out = lines.slice()

  for (const d of decorators) {
    if (d.kind !== 'param' || plan.disabled[d.index]) continue
    applyParam(d, lines, out, lang, config, file, plan.disabled, findings, sectionsBroken)
  }
  if (opts.trimDecoratorAttrs) {
    for (const d of decorators) if (!d.error && d.tail !== '') out[d.index] = d.head
  }
  const { disabled, markerColumn } = plan
  for (let i = 0; i < out.length; i++) if (disabled[i]) out[i] = commentOut(out[i], lang.marker, markerColumn[i])

  if (findings.some((f) => f.severity === 'error')) return { content: null, findings }
  return { content: joinLines(out, cr), findings }
}

function applyParam(
  d: Decorator,
  lines: readonly string[],
  out: string[],
  lang: Language,
  config: unknown,
  file: string,
  disabled: Uint8Array,
  findings: Finding[],
  sectionsBroken: boolean,
): void {
  const site = `@param ${d.path}`
  if (d.error) {
    findings.push(finding('BAD_DECORATOR', 'warning', file, d.index + 1, d.path || null, d.error))
    if (!d.path) return
  }
  const target = findValueLine(lines, d.index, lang)
  if ('reason' in target) {
    findings.push(finding('INERT_PARAM', 'warning', file, d.index + 1, d.path, `${site}: ${target.reason}`))
    return
  }
  const i = target.index
  if (disabled[i]) {
    findings.push(finding('INERT_PARAM', 'warning', file, d.index + 1, d.path, `${site}: its value line ${i + 1} is in a disabled section`))
    return
  }
  const line = lines[i]
  const prefix = target.match
  const parts = splitValue(line.slice(prefix.length), lang)
  const multiline = multilineReason(lines, i, prefix, lang)
  if (multiline) {
    findings.push(multilineFinding(file, i, d.path, multiline))
    return
  }
  const value = lookup(config, d.path)
  if (value === ABSENT) {
    // a file refused for its sections is reported for them alone, not for every knob inside
    if (sectionsBroken) return
    findings.push(
      finding('UNRESOLVED_PARAM', 'warning', file, i + 1, d.path, `${site} is absent from the configuration; the template default stays`),
    )
    return
  }
  let literal: string
  try {
    literal = prefix.endsWith('=') && lang.id === 'yaml' ? yamlInScalar(prefix, value) : serializeValue(value, lang.id)
  } catch (e) {
    if (!(e instanceof UnserializableValue)) throw e
    findings.push(finding('UNSERIALIZABLE_VALUE', 'error', file, i + 1, d.path, `${site}: ${e.message}`))
    return
  }
  // YAML needs a space after `key:`; elsewhere the original spacing (possibly none) is kept.
  const lead = parts.lead === '' && lang.id === 'yaml' && prefix.endsWith(':') ? ' ' : parts.lead
  out[i] = prefix + lead + literal + parts.trail + parts.comment
}

/**
 * Rule 5: the message names the site as `<file>:<line> @param <path>` (the API returns it as it is);
 * formatFinding does not print that `<file>:<line>` twice.
 */
export function multilineFinding(file: string, index: number, path: string, reason: string): Finding {
  return finding('MULTILINE_VALUE', 'error', file, index + 1, path, `${file}:${index + 1} @param ${path}: the value line opens ${reason}`)
}

/** Why the value line at `i` (its `key:`/`key=` prefix given) opens a multi-line block, or null (rule 5). */
export function multilineReason(lines: readonly string[], i: number, prefix: string, lang: Language): string | null {
  const parts = splitValue(lines[i].slice(prefix.length), lang)
  if (parts.multiline) return parts.multiline
  return lang.id === 'yaml' ? opensIndentedBlock(lines, i, prefix, parts.value === '') : null
}

/**
 * YAML: a value line is followed by a block when the next non-blank, non-comment line is indented
 * deeper than the key (an indented mapping or a plain-scalar continuation), or, when the value is
 * empty, by a `- ` sequence at the key's own indentation.
 */
function opensIndentedBlock(lines: readonly string[], i: number, prefix: string, emptyValue: boolean): string | null {
  const keyCol = prefix.length - prefix.replace(/^\s*(?:-\s+)?/, '').length
  for (let j = i + 1; j < lines.length; j++) {
    const l = lines[j]
    const t = l.trim()
    if (t === '' || t.startsWith('#')) continue
    const ind = indentOf(l)
    if (ind > keyCol) return emptyValue ? 'an indented block' : 'a continuation on the next lines'
    if (emptyValue && ind === keyCol && /^-(\s|$)/.test(t)) return 'a block sequence'
    return null
  }
  return null
}

/**
 * YAML `- KEY=value` / `--flag=value` lines: the `=` sits inside one plain scalar, so the value is
 * written raw after it, provided the whole scalar stays a plain YAML string.
 */
function yamlInScalar(prefix: string, value: unknown): string {
  const raw = typeof value === 'string' ? value : JSON.stringify(value)
  const scalar = prefix.replace(/^\s*(?:-\s+)?/, '') + raw
  if (!yamlPlainSafe(scalar)) throw new UnserializableValue(`"${scalar}" would not stay a plain YAML string after key=`)
  return raw
}
