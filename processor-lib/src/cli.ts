/**
 * The `ies-processor` command line (the contract other tools call):
 *
 *   ies-processor --extract-catalog <dir> --provider aws [--strict] [--output <file>] [--params-file <path>]
 *   ies-processor process --templates <dir> --config <config.json> --out <dir> [--trim-decorator-attrs] [--json]
 *   ies-processor gate --templates <dir> --config <config.json> [--expect <path>]... [--trim-decorator-attrs] [--json]
 *
 * Exit codes: 0 success, 1 findings (gate) / refused files (process) / catalog errors (--strict), 2 usage or input error.
 * Findings go to stderr, one per line: `<file>:<line> <CODE> <message>`; with --json as one JSON array.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { join, relative, resolve, sep } from 'node:path'
import { DEFAULT_PARAMS_FILES, type Catalog } from './catalog.ts'
import { extractCatalog } from './extract-catalog.ts'
import { finding, formatFinding, ProcessorError, type Finding } from './findings.ts'
import { languageOf } from './languages.ts'
import { lintCatalog, lintDecorators, uniqueFindings } from './lint.ts'
import { runGate } from './gate.ts'
import { processTree, writeTree } from './tree.ts'

const USAGE = `usage:
  ies-processor --extract-catalog <dir> --provider aws [--strict] [--output <file>] [--params-file <path>]
  ies-processor process --templates <dir> --config <config.json> --out <dir> [--trim-decorator-attrs] [--json]
  ies-processor gate --templates <dir> --config <config.json> [--expect <path>]... [--trim-decorator-attrs] [--json]`

export interface CliIO {
  stdout: (s: string) => void
  stderr: (s: string) => void
  env: NodeJS.ProcessEnv
}

class UsageError extends Error {}

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    return await dispatch(argv, io)
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`ies-processor: ${e.message}\n${USAGE}\n`)
      return 2
    }
    if (e instanceof ProcessorError) {
      io.stderr(`ies-processor: ${e.code}: ${e.message}\n`)
      return 2
    }
    io.stderr(`ies-processor: ${(e as Error).message}\n`)
    return 2
  }
}

function parse(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'extract-catalog': { type: 'string' },
        provider: { type: 'string' },
        strict: { type: 'boolean' },
        output: { type: 'string' },
        'params-file': { type: 'string' },
        templates: { type: 'string' },
        config: { type: 'string' },
        out: { type: 'string' },
        expect: { type: 'string', multiple: true },
        'trim-decorator-attrs': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (e) {
    throw new UsageError((e as Error).message)
  }
}

async function dispatch(argv: readonly string[], io: CliIO): Promise<number> {
  const { values: v, positionals } = parse(argv)
  if (v.help) {
    io.stdout(USAGE + '\n')
    return 0
  }
  const trim = v['trim-decorator-attrs'] === true || io.env.TRIM_DECORATOR_ATTRS === '1'
  const report = (findings: Finding[]) => {
    if (v.json) io.stderr(JSON.stringify(findings) + '\n')
    else for (const f of findings) io.stderr(formatFinding(f) + '\n')
  }

  if (v['extract-catalog'] !== undefined) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`)
    if (!v.provider) throw new UsageError('--extract-catalog needs --provider')
    const templatesDir = v['extract-catalog']
    const catalog = await extractCatalog({ templatesDir, provider: v.provider, paramsFile: v['params-file'] })
    const json = JSON.stringify(catalog, null, 2) + '\n'
    if (v.output) await writeFile(v.output, json)
    else io.stdout(json)
    // --strict also reads the parameter-values file for the mistakes the document has no place for
    // (inert @param, multi-line value site, unmatched @section, default= unlike the file's value).
    const findings = v.strict ? await strictFindings(templatesDir, catalog, v.provider, v['params-file']) : catalogFindings(catalog)
    report(findings)
    return v.strict && findings.length > 0 ? 1 : 0
  }

  const command = positionals[0]
  if (command !== 'process' && command !== 'gate') throw new UsageError(command ? `unknown command ${command}` : 'no command')
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${positionals[1]}`)
  if (!v.templates) throw new UsageError(`${command} needs --templates`)
  if (!v.config) throw new UsageError(`${command} needs --config`)
  const config = await readConfig(v.config)

  if (command === 'process') {
    if (!v.out) throw new UsageError('process needs --out')
    const result = await processTree({ templatesDir: v.templates, config, trimDecoratorAttrs: trim })
    report(result.findings)
    if (!result.ok) {
      io.stderr(`ies-processor: ${result.refused.length} file(s) refused; nothing written\n`)
      return 1
    }
    await writeTree(v.out, result.files)
    return 0
  }
  const gate = await runGate({ templatesDir: v.templates, config, trimDecoratorAttrs: trim, expectedFiles: v.expect ?? [] })
  report(gate.findings)
  return gate.ok ? 0 : 1
}

function catalogFindings(catalog: Catalog): Finding[] {
  return catalog.errors.map((e) =>
    finding(e.code === 'MISSING_PARAMS_FILE' ? 'READ_FAILED' : e.code, 'error', e.file, e.line, e.path, e.message),
  )
}

async function strictFindings(templatesDir: string, catalog: Catalog, provider: string, paramsFile?: string): Promise<Finding[]> {
  const rel = paramsFile ?? DEFAULT_PARAMS_FILES[provider]
  const lang = languageOf(rel)!
  const text = await readFile(join(templatesDir, rel), 'utf8')
  const file = relative(resolve(templatesDir), resolve(templatesDir, rel)).split(sep).join('/')
  return uniqueFindings([...lintCatalog(file, text, lang, catalog), ...lintDecorators(file, text, lang)])
}

async function readConfig(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    throw new UsageError(`cannot read the configuration file ${path}`)
  }
  let config: unknown
  try {
    config = JSON.parse(text)
  } catch (e) {
    throw new UsageError(`the configuration file ${path} is not valid JSON: ${(e as Error).message}`)
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new UsageError(`the configuration file ${path} must hold a JSON object`)
  }
  return config
}

// Run when executed directly (the bin shim imports this module with IES_PROCESSOR_CLI=1).
if (process.env.IES_PROCESSOR_CLI === '1') {
  delete process.env.IES_PROCESSOR_CLI
  const code = await runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
  })
  process.exitCode = code
}
