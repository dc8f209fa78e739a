/**
 * Author checks: the mistakes a template author can make, found without any configuration, so a
 * mistake inside a service that a configuration turns off is still reported. Used by the gate
 * (every decorated file), by `--extract-catalog --strict` (the parameter-values file) and by
 * `npm run check:templates` (the whole tree). Each mistake is reported once, at its line.
 */
import { buildCatalog, DEFAULT_PARAMS_FILES, type Catalog } from './catalog.ts'
import { findValueLine, parseAttributes, scanDecorators } from './decorators.ts'
import { relationDeclarationProblems } from './contract/relations.ts'
import { finding, sortFindings, type Finding } from './findings.ts'
import { languageOf, type Language } from './languages.ts'
import { matchSections, type SectionPair } from './sections.ts'
import { multilineFinding, multilineReason } from './substitute.ts'
import { readTree, selectInputs } from './tree.ts'
import { handoverFindings, ignoreFindings } from './template-ignore.ts'
import { parseLiteral, splitValue } from './values.ts'

/** Lines without terminators (a CRLF's `\r` dropped), as every pass reads them. */
export function textLines(text: string): string[] {
  return text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
}

/**
 * The decorator mistakes of one file: unreadable decorators, unmatched or crossed sections, inert
 * @param (no value line below it), multi-line value sites. Attributes are not read here (rule 8:
 * only the catalog extractor reads them; see lintCatalog).
 */
export function lintDecorators(file: string, text: string, lang: Language): Finding[] {
  if (text.indexOf('@') === -1) return []
  const lines = textLines(text)
  const decorators = scanDecorators(lines, lang)
  if (decorators.length === 0) return []
  const findings = matchSections(decorators, file).findings
  for (const d of decorators) {
    if (d.kind === 'section') continue
    if (d.error) findings.push(finding('BAD_DECORATOR', 'error', file, d.index + 1, d.path || null, d.error))
    if (d.kind !== 'param' || !d.path) continue
    const target = findValueLine(lines, d.index, lang)
    if ('reason' in target) {
      findings.push(finding('INERT_PARAM', 'warning', file, d.index + 1, d.path, `@param ${d.path}: ${target.reason}`))
      continue
    }
    const reason = multilineReason(lines, target.index, target.match, lang)
    if (reason) {
      findings.push(multilineFinding(file, target.index, d.path, reason))
    }
  }
  return findings
}

/**
 * The parameter-values file's catalog mistakes: the extraction errors (attributes, paths,
 * undeclared services) and every `default=` that differs from the value in the file below it.
 */
export function lintCatalog(file: string, text: string, lang: Language, catalog: Catalog): Finding[] {
  const findings: Finding[] = catalog.errors.map((e) =>
    finding(e.code === 'MISSING_PARAMS_FILE' ? 'READ_FAILED' : e.code, 'error', e.file, e.line, e.path, e.message),
  )
  const lines = textLines(text)
  for (const d of scanDecorators(lines, lang)) {
    if (d.kind !== 'param' || d.error) continue
    const attrs = parseAttributes(d.tail)
    const declared = attrs.attrs.default
    if (declared === undefined || attrs.errors.length > 0) continue
    const target = findValueLine(lines, d.index, lang)
    if ('reason' in target || multilineReason(lines, target.index, target.match, lang)) continue
    const written = splitValue(lines[target.index].slice(target.match.length), lang).value
    if (!sameDefault(declared, parseLiteral(written, lang.id))) {
      findings.push(
        finding(
          'DEFAULT_MISMATCH',
          'error',
          file,
          d.index + 1,
          d.path,
          `@param ${d.path}: default=${declared} differs from the value ${written} on line ${target.index + 1}`,
        ),
      )
    }
  }
  const lineOf = new Map(scanDecorators(lines, lang).map((d) => [d.path, d.index + 1]))
  for (const p of relationDeclarationProblems(catalog)) {
    findings.push(finding('BAD_RELATION', 'error', file, lineOf.get(p.field) ?? 0, p.field, `@param ${p.field}: ${p.message}`))
  }
  return findings
}

/** Does a `default=` attribute (a string as written) say the same as the file's value? */
export function sameDefault(declared: string, value: unknown): boolean {
  if (typeof value === 'string') return declared === value
  if (typeof value === 'number') return declared.trim() !== '' && Number(declared) === value
  if (typeof value === 'boolean' || value === null) return declared === String(value)
  try {
    return JSON.stringify(JSON.parse(declared)) === JSON.stringify(value)
  } catch {
    return false
  }
}

const MODULE_RE = /^module\s+"([\w-]+)"\s*\{/
const SOURCE_RE = /^\s*source\s*=\s*"\.\/modules\/([\w-]+)\/?"/

/**
 * Rule 14: in the folder of the parameter-values file (the root module), each module block whose
 * source is `./modules/<key>` of a catalog service sits inside `@section services.<key>.enabled`.
 */
export function lintModuleGates(file: string, text: string, lang: Language, services: ReadonlySet<string>): Finding[] {
  if (text.indexOf('module') === -1) return []
  const lines = textLines(text)
  const pairs = matchSections(scanDecorators(lines, lang), file).pairs
  const findings: Finding[] = []
  for (let i = 0; i < lines.length; i++) {
    const m = MODULE_RE.exec(lines[i])
    if (!m) continue
    let key: string | null = null
    for (let j = i + 1; j < lines.length && !/^\}/.test(lines[j]); j++) {
      const s = SOURCE_RE.exec(lines[j])
      if (s) key = s[1]
    }
    if (!key || !services.has(key) || insideGate(pairs, i, `services.${key}.enabled`)) continue
    findings.push(
      finding(
        'UNGATED_MODULE',
        'error',
        file,
        i + 1,
        `services.${key}.enabled`,
        `module "${m[1]}" (./modules/${key}) is outside its @section services.${key}.enabled gate`,
      ),
    )
  }
  return findings
}

function insideGate(pairs: readonly SectionPair[], index: number, path: string): boolean {
  return pairs.some((p) => p.begin.path === path && p.begin.index < index && index < p.end.index)
}

/**
 * Each finding once: one per file, line and code; a `BAD_DECORATOR` is dropped where the same line
 * already has another error (the extractor names the same mistake more precisely).
 */
export function uniqueFindings(list: readonly Finding[]): Finding[] {
  const seen = new Set<string>()
  const errorLines = new Set(list.filter((f) => f.severity === 'error' && f.code !== 'BAD_DECORATOR').map((f) => `${f.file}:${f.line}`))
  const out: Finding[] = []
  for (const f of list) {
    const key = `${f.file}:${f.line}:${f.code}`
    if (seen.has(key)) continue
    if (f.code === 'BAD_DECORATOR' && f.line > 0 && errorLines.has(`${f.file}:${f.line}`)) continue
    seen.add(key)
    out.push(f)
  }
  return sortFindings(out)
}

export interface LintTreeResult {
  /** The catalog extracted from the parameter-values file (null when the file is missing). */
  catalog: Catalog | null
  findings: Finding[]
}

/** Every author mistake of a templates tree, with no configuration (see the module comment). */
export async function lintTree(opts: { templatesDir: string; provider: string; paramsFile?: string }): Promise<LintTreeResult> {
  const paramsFile = opts.paramsFile ?? DEFAULT_PARAMS_FILES[opts.provider]
  const read = await readTree(opts.templatesDir)
  // Only what is output is a template; the ignore file's patterns and the README are checked here too.
  const inputs = selectInputs(read.inputs)
  const findings: Finding[] = read.unsupported.map((p) => finding('UNSUPPORTED_ENTRY', 'error', p, 0, null, 'not a regular file'))
  findings.push(...ignoreFindings(read.inputs), ...handoverFindings(inputs))
  const texts = new Map<string, { text: string; lang: Language }>()
  for (const input of inputs) {
    const lang = languageOf(input.path)
    if (lang) texts.set(input.path, { text: input.content.toString('utf8'), lang })
  }
  let catalog: Catalog | null = null
  const params = paramsFile ? texts.get(paramsFile) : undefined
  if (!paramsFile || !params) {
    findings.push(finding('READ_FAILED', 'error', paramsFile ?? '.', 0, null, `no parameter-values file for provider "${opts.provider}"`))
  } else {
    catalog = buildCatalog(paramsFile, params.text, params.lang, 'check')
    findings.push(...lintCatalog(paramsFile, params.text, params.lang, catalog))
  }
  const rootDir = paramsFile && paramsFile.includes('/') ? paramsFile.slice(0, paramsFile.lastIndexOf('/') + 1) : ''
  const services = new Set(Object.keys(catalog?.services ?? {}))
  for (const [path, { text, lang }] of texts) {
    findings.push(...lintDecorators(path, text, lang))
    if (path.startsWith(rootDir) && !path.slice(rootDir.length).includes('/') && path.endsWith('.tf')) {
      findings.push(...lintModuleGates(path, text, lang, services))
    }
  }
  return { catalog, findings: uniqueFindings(findings) }
}
