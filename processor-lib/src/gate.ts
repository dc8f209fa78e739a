/**
 * The generation gate (rule 12): processing findings (unresolved parameters, inert decorators,
 * refusals), missing output files, Terraform formatting (`terraform fmt` via @cdktf/hcl-tools)
 * and validation (HCL via @cdktf/hcl2json, undeclared var./local. references, YAML, JSON).
 */
import YAML from 'yaml'
import { finding, type Finding } from './findings.ts'
import { languageOf } from './languages.ts'
import { lintDecorators, uniqueFindings } from './lint.ts'
import { processFiles, readTree, selectInputs, type ProcessResult } from './tree.ts'
import type { InputFile, TreeFile } from './files.ts'

export interface GateOptions {
  templatesDir: string
  config: unknown
  trimDecoratorAttrs?: boolean
  /** Paths that must exist in the output (besides every input path). */
  expectedFiles?: readonly string[]
  /** Reuse fmt and parse results across runs over similar trees. */
  cache?: ValidationCache
}

export interface GateResult {
  ok: boolean
  findings: Finding[]
  process: ProcessResult
}

export async function runGate(opts: GateOptions): Promise<GateResult> {
  const read = await readTree(opts.templatesDir)
  const { unsupported } = read
  const inputs = selectInputs(read.inputs)
  const process = processFiles(inputs, opts.config, { trimDecoratorAttrs: opts.trimDecoratorAttrs })
  const findings = [...process.findings]
  // The author's mistakes independent of the configuration: those inside a disabled section too.
  for (const input of inputs) {
    const lang = languageOf(input.path)
    if (lang) findings.push(...lintDecorators(input.path, input.content.toString('utf8'), lang))
  }
  for (const p of unsupported) findings.push(finding('UNSUPPORTED_ENTRY', 'error', p, 0, null, 'not a regular file'))
  if (process.ok) {
    findings.push(...checkOutputs(inputs, process.files, opts.expectedFiles ?? []))
    findings.push(...(await validateFiles(process.files, opts.cache)))
  }
  const unique = uniqueFindings(findings)
  return { ok: unique.length === 0, findings: unique, process }
}

/** Every input path (the inputs that are output: selectInputs) and every expected path is present, and the counts agree. */
export function checkOutputs(inputs: readonly InputFile[], files: readonly TreeFile[], expected: readonly string[]): Finding[] {
  const out: Finding[] = []
  const have = new Set(files.map((f) => f.path))
  for (const p of [...inputs.map((i) => i.path), ...expected]) {
    if (!have.has(p)) out.push(finding('MISSING_OUTPUT', 'error', p, 0, null, 'expected in the output but absent'))
  }
  if (files.length !== inputs.length) {
    out.push(finding('MISSING_OUTPUT', 'error', '.', 0, null, `${files.length} output files for ${inputs.length} templates`))
  }
  return out
}

const isTerraform = (p: string) => /\.(tf|tfvars)$/.test(p)
const isHcl = (p: string) => /\.(tf|tfvars|hcl)$/.test(p)
const isYaml = (p: string) => /\.ya?ml$/.test(p)

/**
 * Results of `terraform fmt` and of the HCL parser by file text, for a caller that validates many
 * trees of mostly identical files (check:templates' gate matrix). Without one, nothing is kept.
 */
export class ValidationCache {
  readonly formatted = new Map<string, string>()
  readonly parsed = new Map<string, { value: Record<string, unknown> } | { error: string }>()
}

// The HCL formatter and parser each start a Go WebAssembly runtime when imported (about 0.4 s of CPU
// for the two): imported on first use, so a process that validates no tree (most server starts, most
// test files) does not start them.
let hclTools: Promise<typeof import('@cdktf/hcl-tools')> | undefined
let hcl2json: Promise<typeof import('@cdktf/hcl2json')> | undefined
const format = async (text: string) => (await (hclTools ??= import('@cdktf/hcl-tools'))).format(text)
const parseHcl = async (path: string, text: string) => (await (hcl2json ??= import('@cdktf/hcl2json'))).parse(path, text)

async function formatted(text: string, cache?: ValidationCache): Promise<string> {
  let canonical = cache?.formatted.get(text)
  if (canonical === undefined) {
    canonical = await format(text)
    cache?.formatted.set(text, canonical)
  }
  return canonical
}

async function parsedHcl(path: string, text: string, cache?: ValidationCache) {
  const key = `${path}\0${text}`
  let result = cache?.parsed.get(key)
  if (!result) {
    try {
      result = { value: await parseHcl(path, text) }
    } catch (e) {
      result = { error: String(e) }
    }
    cache?.parsed.set(key, result)
  }
  return result
}

/** Validate a processed tree's files (formatting and parsing). */
export async function validateFiles(files: readonly TreeFile[], cache?: ValidationCache): Promise<Finding[]> {
  const findings: Finding[] = []
  const chartTemplateDirs = helmTemplateDirs(files)
  const modules = new Map<string, { declared: Set<string>; refs: { file: string; text: string; ref: string }[] }>()

  for (const f of files) {
    const text = typeof f.content === 'string' ? f.content : f.content.toString('utf8')
    if (isHcl(f.path)) {
      if (isTerraform(f.path)) {
        const canonical = await formatted(text, cache)
        if (canonical !== text) {
          findings.push(finding('FORMAT', 'error', f.path, firstDifferentLine(text, canonical), null, 'not in terraform fmt form'))
        }
      }
      const parsed = await parsedHcl(f.path, text, cache)
      if ('error' in parsed) {
        findings.push(finding('HCL_PARSE', 'error', f.path, hclErrorLine(parsed.error), null, oneLine(parsed.error)))
        continue
      }
      if (f.path.endsWith('.tf')) collectModule(modules, f.path, text, parsed.value)
    } else if (isYaml(f.path)) {
      if (chartTemplateDirs.some((d) => f.path.startsWith(d))) continue // Go templates, not YAML
      for (const doc of YAML.parseAllDocuments(text)) {
        const e = doc.errors[0]
        if (e) {
          findings.push(finding('YAML_PARSE', 'error', f.path, e.linePos?.[0].line ?? 0, null, oneLine(e.message)))
          break
        }
      }
    } else if (f.path.endsWith('.json')) {
      try {
        JSON.parse(text)
      } catch (e) {
        findings.push(finding('JSON_PARSE', 'error', f.path, 0, null, oneLine((e as Error).message)))
      }
    }
  }
  for (const mod of modules.values()) {
    for (const r of mod.refs) {
      if (!mod.declared.has(r.ref)) {
        findings.push(
          finding('UNDECLARED_REFERENCE', 'error', r.file, lineOf(r.text, r.ref), null, `${r.ref} is not declared in this module`),
        )
      }
    }
  }
  return findings
}

/** Helm chart `templates/` folders (beside a Chart.yaml) hold Go templates, which are not YAML. */
function helmTemplateDirs(files: readonly TreeFile[]): string[] {
  return files
    .filter((f) => f.path === 'Chart.yaml' || f.path.endsWith('/Chart.yaml'))
    .map((f) => f.path.slice(0, -'Chart.yaml'.length) + 'templates/')
}

/** Record a .tf file's declarations (variable blocks, locals) and references (var.x, local.x) per directory. */
function collectModule(
  modules: Map<string, { declared: Set<string>; refs: { file: string; text: string; ref: string }[] }>,
  path: string,
  text: string,
  parsed: Record<string, unknown>,
): void {
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''
  let mod = modules.get(dir)
  if (!mod) modules.set(dir, (mod = { declared: new Set(), refs: [] }))
  const variables = parsed.variable
  if (variables && typeof variables === 'object') for (const k of Object.keys(variables)) mod.declared.add(`var.${k}`)
  const locals = parsed.locals
  if (Array.isArray(locals)) {
    for (const block of locals) if (block && typeof block === 'object') for (const k of Object.keys(block)) mod.declared.add(`local.${k}`)
  }
  const seen = new Set<string>()
  walkStrings(parsed, (s) => {
    for (const expr of interpolations(s)) {
      for (const m of expr.matchAll(/(?<![\w.])(var|local)\.([A-Za-z_][\w-]*)/g)) {
        const ref = `${m[1]}.${m[2]}`
        if (!seen.has(ref)) {
          seen.add(ref)
          mod.refs.push({ file: path, text, ref })
        }
      }
    }
  })
}

function walkStrings(v: unknown, fn: (s: string) => void): void {
  if (typeof v === 'string') fn(v)
  else if (Array.isArray(v)) for (const x of v) walkStrings(x, fn)
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      fn(k)
      walkStrings(x, fn)
    }
  }
}

/** The expressions inside `${ ... }` of a converted HCL string (brace-balanced, `$${` is a literal). */
function interpolations(s: string): string[] {
  const out: string[] = []
  let i = s.indexOf('${')
  while (i !== -1) {
    if (i > 0 && s[i - 1] === '$') {
      i = s.indexOf('${', i + 2)
      continue
    }
    let depth = 1
    let j = i + 2
    for (; j < s.length && depth > 0; j++) {
      if (s[j] === '{') depth++
      else if (s[j] === '}') depth--
    }
    out.push(s.slice(i + 2, j - 1))
    i = s.indexOf('${', j)
  }
  return out
}

function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle)
  return at === -1 ? 0 : text.slice(0, at).split('\n').length
}

function firstDifferentLine(a: string, b: string): number {
  const x = a.split('\n')
  const y = b.split('\n')
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return i + 1
  return 0
}

function hclErrorLine(message: string): number {
  const m = /:(\d+),\d+/.exec(message)
  return m ? Number(m[1]) : 0
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim()
}
