// `npm run check:templates [-- <folder>] [options]`: every check a templates tree must pass, in one
// command, each finding printed once as `file:line: CODE message` with a fix hint, grouped by file;
// exit 1 on any finding (2 on a usage error). The folder defaults to templates/.
//
//   1. author checks with no configuration (processor-lib lintTree): strict catalog extraction,
//      decorators, sections, multi-line sites, default= against the file, gated module calls;
//   2. the generation gate (processor-lib runGate: substitution, fmt form, HCL/YAML/JSON parsing,
//      declared references) with every service on, every service off, no domain, each service alone;
//   3. `terraform fmt -check` and `terraform validate` of those generated trees (provider mirror of
//      this checkout; skipped with the reason when Terraform or the mirror is missing, except under CI);
//   4. the migrations (migrations/*.yaml) against the catalog (check-templates/migrations.ts);
//   5. the desktop's static catalog against the extracted one (client rule 6; the command that
//      regenerates it is printed, or --write-static regenerates it).
//
// Options:
//   --write-static            regenerate the static catalog from the folder before comparing
//   --static-catalog <file>   the static catalog to compare with (default desktop/src/catalog/static-catalog.json)
//   --emit-config <file>      only write a processor configuration made of the catalog's defaults
//                             (for `ies-processor gate --config <file>`), then exit
//   --no-terraform            skip step 3
//   --upgrade-from <commit>   only the upgrade check instead (scripts/check-templates/upgrade.ts): the
//                             tree of <commit> applied to moto, the current tree planned against it
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { lintTree, runGate, ValidationCache, type Finding, type TreeFile } from '@ies/processor-lib'
import { runGuard, STATIC_CATALOG, writeStatic, writeStaticCommand } from '../desktop/scripts/catalog-guard.ts'
import { catalogDefaults, gateMatrix } from './check-templates/configs.ts'
import { FindingSet, formatReport } from './check-templates/report.ts'
import { checkTerraform, terraformMissing, type GeneratedTree } from './check-templates/terraform.ts'
import { upgradeCommand } from './check-templates/upgrade.ts'
import { migrationFindings } from './check-templates/migrations.ts'
import { REPO_ROOT } from './terraform/cli-config.ts'

const USAGE =
  'usage: npm run check:templates -- [folder] [--write-static] [--static-catalog <file>] [--emit-config <file>] [--no-terraform] [--upgrade-from <commit>]'
const STATIC_FILE_LABEL = 'desktop/src/catalog/static-catalog.json'

export interface CheckOptions {
  templatesDir: string
  writeStatic?: boolean
  staticCatalog?: string
  terraform?: boolean
  log?: (line: string) => void
}

export interface CheckResult {
  findings: Finding[]
  configurations: number
  terraformTrees: number
  terraformSkipped: string | null
  /** --write-static wrote the static catalog (only when the extraction has no error). */
  wroteStatic: boolean
  seconds: number
}

export async function checkTemplates(opts: CheckOptions): Promise<CheckResult> {
  const started = performance.now()
  const log = opts.log ?? (() => {})
  const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`
  const set = new FindingSet()
  let wroteStatic = false
  const { catalog, findings: authored } = await lintTree({ templatesDir: opts.templatesDir, provider: 'aws' })
  set.add(authored)
  log(`author checks: ${authored.length} finding(s) [${at()}]`)
  const result = (configurations: number, terraformTrees: number, terraformSkipped: string | null): CheckResult => ({
    findings: set.list(configurations),
    configurations,
    terraformTrees,
    terraformSkipped,
    wroteStatic,
    seconds: (performance.now() - started) / 1000,
  })
  if (!catalog) return result(0, 0, null)
  set.add(await migrationFindings(opts.templatesDir, catalog))

  // The gate matrix. A knob whose decorator is already reported (its field is not in the catalog,
  // so no configuration has it) is not reported again as unresolved at its value line.
  const broken = new Set(authored.filter((f) => f.severity === 'error' && f.path).map((f) => f.path))
  const matrix = gateMatrix(catalog)
  const trees: GeneratedTree[] = []
  const cache = new ValidationCache()
  for (const { name, config } of matrix) {
    const gate = await runGate({ templatesDir: opts.templatesDir, config, cache })
    set.add(
      gate.findings.filter((f) => !(f.code === 'UNRESOLVED_PARAM' && broken.has(f.path))),
      name,
    )
    if (gate.process.ok) trees.push({ names: [name], files: gate.process.files as TreeFile[] })
  }
  log(`gate: ${matrix.length} configurations [${at()}]`)

  let terraformTrees = 0
  let terraformSkipped: string | null = opts.terraform === false ? '--no-terraform' : null
  if (!terraformSkipped && trees.length > 0) {
    terraformSkipped = terraformMissing()
    const inCi = !!process.env.CI && process.env.CI !== 'false'
    if (terraformSkipped && inCi) {
      set.add([
        {
          code: 'TERRAFORM_VALIDATE',
          severity: 'error',
          file: 'terraform',
          line: 0,
          path: null,
          message: `${terraformSkipped} (required under CI)`,
        },
      ])
    } else if (!terraformSkipped) {
      const work = await mkdtemp(path.join(os.tmpdir(), 'ies-check-templates-'))
      try {
        const tf = await checkTerraform(trees, work)
        set.add(tf.findings)
        terraformTrees = tf.validated
      } finally {
        await rm(work, { recursive: true, force: true })
      }
      log(`terraform: fmt -check and validate of ${terraformTrees} distinct tree(s) [${at()}]`)
    }
  }

  if (catalog.errors.length === 0) {
    wroteStatic = !!opts.writeStatic
    set.add(await staticCatalogFindings(opts))
  } else {
    log('static catalog: not compared while the extraction has errors')
  }
  return result(matrix.length, terraformTrees, terraformSkipped)
}

/** The static catalog comparison, as one finding per kind of problem (differences; inconsistencies). */
async function staticCatalogFindings(opts: CheckOptions): Promise<Finding[]> {
  const staticFile = opts.staticCatalog ?? STATIC_CATALOG
  if (opts.writeStatic) await writeStatic(opts.templatesDir, staticFile)
  const guard = await runGuard(opts.templatesDir, staticFile)
  const defaultStatic = path.resolve(staticFile) === STATIC_CATALOG
  const label = defaultStatic ? STATIC_FILE_LABEL : staticFile
  const defaultDir = path.resolve(opts.templatesDir) === path.join(REPO_ROOT, 'templates')
  const command = defaultStatic
    ? writeStaticCommand(opts.templatesDir)
    : `npm run check:templates -- ${defaultDir ? '' : `${opts.templatesDir} `}--write-static --static-catalog ${staticFile}`
  const out: Finding[] = []
  const some = (items: string[]) => items.slice(0, 5).join('; ') + (items.length > 5 ? `; and ${items.length - 5} more` : '')
  if (guard.differences.length > 0) {
    const items = guard.differences.map((d) => `${d.path}: live ${JSON.stringify(d.live)} / static ${JSON.stringify(d.static)}`)
    out.push({
      code: 'STATIC_CATALOG',
      severity: 'error',
      file: label,
      line: 0,
      path: null,
      message: `${guard.differences.length} difference(s) from the templates' catalog: ${some(items)}. regenerate it: ${command}`,
    })
  }
  if (guard.consistency.length > 0) {
    out.push({
      code: 'STATIC_CATALOG',
      severity: 'error',
      file: label,
      line: 1,
      path: null,
      message: `inconsistent: ${some(guard.consistency)}`,
    })
  }
  return out
}

async function main(argv: string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'write-static': { type: 'boolean' },
        'static-catalog': { type: 'string' },
        'emit-config': { type: 'string' },
        'no-terraform': { type: 'boolean' },
        'upgrade-from': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (e) {
    console.error(`check:templates: ${(e as Error).message}\n${USAGE}`)
    return 2
  }
  const { values: v, positionals } = parsed
  if (v.help) {
    console.log(USAGE)
    return 0
  }
  if (positionals.length > 1) {
    console.error(`check:templates: one folder at most\n${USAGE}`)
    return 2
  }
  // npm runs scripts from the repository root; a relative folder is the caller's.
  const cwd = process.env.INIT_CWD ?? process.cwd()
  const templatesDir = positionals[0] ? path.resolve(cwd, positionals[0]) : path.join(REPO_ROOT, 'templates')

  if (v['upgrade-from']) return upgradeCommand(templatesDir, v['upgrade-from'])

  if (v['emit-config']) {
    const { catalog, findings } = await lintTree({ templatesDir, provider: 'aws' })
    if (!catalog) {
      process.stderr.write(formatReport(findings))
      return 1
    }
    const file = path.resolve(cwd, v['emit-config'])
    await writeFile(file, JSON.stringify(catalogDefaults(catalog), null, 2) + '\n')
    console.log(`wrote ${file}: the catalog's defaults (global fields, every service's enabled and fields)`)
    console.log(
      `use it: node processor-lib/bin/ies-processor.js gate --templates ${path.relative(REPO_ROOT, templatesDir) || '.'} --config ${file}`,
    )
    return 0
  }

  const result = await checkTemplates({
    templatesDir,
    writeStatic: v['write-static'],
    staticCatalog: v['static-catalog'] ? path.resolve(cwd, v['static-catalog']) : undefined,
    terraform: !v['no-terraform'],
    log: (line) => console.log(`check:templates: ${line}`),
  })
  if (result.wroteStatic) console.log(`check:templates: wrote ${v['static-catalog'] ?? STATIC_FILE_LABEL} from ${templatesDir}`)
  if (result.terraformSkipped) console.log(`check:templates: terraform skipped: ${result.terraformSkipped}`)
  process.stdout.write(formatReport(result.findings))
  const files = new Set(result.findings.map((f) => f.file)).size
  console.log(
    `\ncheck:templates: ${result.findings.length === 0 ? 'ok' : `${result.findings.length} finding(s) in ${files} file(s)`}; ` +
      `${result.configurations} configurations, ${result.terraformTrees} Terraform trees validated; ${result.seconds.toFixed(1)} s`,
  )
  return result.findings.length === 0 ? 0 : 1
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  try {
    process.exitCode = await main(process.argv.slice(2))
  } catch (e) {
    // a missing folder or unreadable file: said in one line, like a usage error
    console.error(`check:templates: ${(e as Error).message}`)
    process.exitCode = 2
  }
}
