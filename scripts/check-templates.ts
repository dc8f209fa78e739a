// `npm run check:templates [-- <folder>] [options]`: every check a templates tree must pass, in one
// command, each finding printed once as `file:line: CODE message` with a fix hint, grouped by file;
// exit 1 on any finding (2 on a usage error). The folder defaults to templates/.
//
//   1. author checks with no configuration (processor-lib lintTree): strict catalog extraction,
//      decorators, sections, multi-line sites, default= against the file, gated module calls;
//   2. the generation gate (processor-lib runGate: substitution, fmt form, HCL/YAML/JSON parsing,
//      declared references) with every service on, every service off, no domain, each service alone;
//   3. in parallel over those generated trees: `terraform fmt -check` and `terraform validate`
//      (provider mirror of this checkout; skipped with the reason when Terraform or the mirror is
//      missing, except under CI), and the security scanners checkov and tflint
//      (scripts/check-templates/scanners.ts, the rules of security-scan.test.ts; a missing scanner
//      is a finding), each finding mapped to the template's file and line; what a tool said about
//      a folder is kept by its content (check-templates/scan-cache.ts, `~/.cache/ies/scans`), so
//      a folder already checked is not checked again (IES_SCAN_CACHE=off runs every tool afresh);
//   4. the migrations (migrations/*.yaml) against the catalog (check-templates/migrations.ts), and
//      each generated tree's gitops/ manifests as Kubernetes objects (check-templates/manifests.ts);
//   5. the organisation rules (policies/*.rego): they compile and pass their Rego tests
//      (check-templates/policies.ts);
//   6. the desktop's built-in catalog as its build makes it from the folder (client rule 6: every
//      attribute readable).
//
// Options:
//   --emit-config <file>      only write a processor configuration made of the catalog's defaults
//                             (for `ies-processor gate --config <file>`), then exit
//   --no-terraform            skip terraform fmt and validate
//   --no-scan                 skip checkov and tflint
//   --service <key>           only the configurations of the matrix that turn the service on, and
//                             every service off (its section commented out, every module folder
//                             scanned without values)
//   --upgrade-from <commit>   only the upgrade check instead (scripts/check-templates/upgrade.ts): the
//                             tree of <commit> applied to moto, the current tree planned against it
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { lintTree, runGate, ValidationCache, type Finding, type TreeFile } from '@ies/processor-lib'
import { staticCatalog } from '../desktop/scripts/static-catalog.ts'
import { checkConsistency } from '../desktop/src/catalog/guard.ts'
import { ALL_OFF, catalogDefaults, gateMatrix } from './check-templates/configs.ts'
import { FindingSet, formatReport } from './check-templates/report.ts'
import { missingScanner, scanTrees } from './check-templates/scanners.ts'
import { checkTerraform, terraformMissing, type GeneratedTree } from './check-templates/terraform.ts'
import { upgradeCommand } from './check-templates/upgrade.ts'
import { migrationFindings } from './check-templates/migrations.ts'
import { treeManifestFindings } from './check-templates/manifests.ts'
import { policyFindings } from './check-templates/policies.ts'
import { storeUse } from './check-templates/scan-cache.ts'
import { REPO_ROOT } from './terraform/cli-config.ts'

const USAGE =
  'usage: npm run check:templates -- [folder] [--emit-config <file>] [--no-terraform] [--no-scan] [--service <key>] [--upgrade-from <commit>]'

export interface CheckOptions {
  templatesDir: string
  terraform?: boolean
  /** checkov and tflint (default true). */
  scan?: boolean
  /** Only the configurations that turn this service on, and every service off (an author checking one service). */
  service?: string
  log?: (line: string) => void
}

export interface CheckResult {
  findings: Finding[]
  configurations: number
  terraformTrees: number
  terraformSkipped: string | null
  /** Distinct trees checkov and tflint scanned (0 with --no-scan or when a scanner is missing). */
  scannedTrees: number
  seconds: number
}

export async function checkTemplates(opts: CheckOptions): Promise<CheckResult> {
  const started = performance.now()
  const log = opts.log ?? (() => {})
  const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`
  const set = new FindingSet()
  const { catalog, findings: authored } = await lintTree({ templatesDir: opts.templatesDir, provider: 'aws' })
  set.add(authored)
  log(`author checks: ${authored.length} finding(s) [${at()}]`)
  const result = (configurations: number, tf: TerraformStep, scannedTrees: number): CheckResult => ({
    findings: set.list(configurations),
    configurations,
    terraformTrees: tf.trees,
    terraformSkipped: tf.skipped,
    scannedTrees,
    seconds: (performance.now() - started) / 1000,
  })
  const rules = await policyFindings(opts.templatesDir)
  set.add(rules)
  log(`rules (policies/*.rego): ${rules.length} finding(s) [${at()}]`)
  if (!catalog) return result(0, { trees: 0, skipped: null }, 0)
  set.add(await migrationFindings(opts.templatesDir, catalog))

  // The gate matrix. A knob whose decorator is already reported (its field is not in the catalog,
  // so no configuration has it) is not reported again as unresolved at its value line.
  const broken = new Set(authored.filter((f) => f.severity === 'error' && f.path).map((f) => f.path))
  if (opts.service && !catalog.services[opts.service])
    throw new Error(`no service "${opts.service}" in the catalog of ${opts.templatesDir}`)
  const matrix = gateMatrix(catalog).filter(
    ({ name, config }) => !opts.service || config.services[opts.service]?.enabled === true || name === ALL_OFF,
  )
  const trees: GeneratedTree[] = []
  const cache = new ValidationCache()
  for (const { name, config } of matrix) {
    const gate = await runGate({ templatesDir: opts.templatesDir, config, cache })
    set.add(
      gate.findings.filter((f) => !(f.code === 'UNRESOLVED_PARAM' && broken.has(f.path))),
      name,
    )
    if (gate.process.ok) {
      trees.push({ names: [name], files: gate.process.files as TreeFile[] })
      set.add(treeManifestFindings(gate.process.files as TreeFile[]), name)
    }
  }
  log(`gate: ${matrix.length} configurations, their gitops/ manifests checked [${at()}]`)

  const work = await mkdtemp(path.join(os.tmpdir(), 'ies-check-templates-'))
  try {
    const [tf, scanned] = await Promise.all([
      terraformStep(trees, path.join(work, 'terraform'), opts, set, (line) => log(`${line} [${at()}]`)),
      scanStep(trees, work, opts, set, (line) => log(`${line} [${at()}]`)),
    ])
    if (catalog.errors.length === 0) set.add(await builtInCatalogFindings(opts.templatesDir))
    else log('built-in catalog: not checked while the extraction has errors')
    return result(matrix.length, tf, scanned)
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

const inCi = () => !!process.env.CI && process.env.CI !== 'false'

interface TerraformStep {
  trees: number
  skipped: string | null
}

/** terraform fmt -check and validate of the trees; skipped with the reason when Terraform cannot run here (not under CI). */
async function terraformStep(
  trees: readonly GeneratedTree[],
  work: string,
  opts: CheckOptions,
  set: FindingSet,
  log: (line: string) => void,
): Promise<TerraformStep> {
  if (opts.terraform === false) return { trees: 0, skipped: '--no-terraform' }
  if (trees.length === 0) return { trees: 0, skipped: null }
  const missing = terraformMissing()
  if (missing) {
    if (inCi()) set.add([toolFinding('TERRAFORM_VALIDATE', 'terraform', `${missing} (required under CI)`)])
    return { trees: 0, skipped: missing }
  }
  await mkdir(work, { recursive: true })
  const tf = await checkTerraform(trees, work)
  set.add(tf.findings)
  log(`terraform: fmt -check and validate of ${tf.validated} distinct tree(s)`)
  return { trees: tf.validated, skipped: null }
}

/** checkov and tflint over the trees, each finding once per template line and rule; a missing scanner is a finding. */
async function scanStep(
  trees: readonly GeneratedTree[],
  work: string,
  opts: CheckOptions,
  set: FindingSet,
  log: (line: string) => void,
): Promise<number> {
  if (opts.scan === false || trees.length === 0) return 0
  const missing = missingScanner()
  if (missing) {
    set.add([toolFinding(missing.startsWith('checkov') ? 'CHECKOV' : 'TFLINT', missing.split(' ')[0], missing)])
    return 0
  }
  const scans = await scanTrees(trees, work, opts.templatesDir)
  for (const scan of scans) for (const name of scan.names) set.add(scan.findings, name)
  const first = scans[0]
  log(
    `checkov and tflint: ${scans.length} distinct tree(s); checkov passed ${first?.deployedPassed ?? 0} checks on what "${first?.names[0] ?? ''}" deploys`,
  )
  return scans.length
}

function toolFinding(code: Finding['code'], file: string, message: string): Finding {
  return { code, severity: 'error', file, line: 0, path: null, message }
}

/** The built-in catalog the desktop build makes from the folder: every attribute readable by the client (rule 6). */
async function builtInCatalogFindings(templatesDir: string): Promise<Finding[]> {
  const problems = checkConsistency(await staticCatalog(templatesDir))
  if (problems.length === 0) return []
  const some = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '')
  return [toolFinding('STATIC_CATALOG', 'terraform/terraform.tfvars', `the built-in catalog made from this tree is inconsistent: ${some}`)]
}

async function main(argv: string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'emit-config': { type: 'string' },
        'no-terraform': { type: 'boolean' },
        'no-scan': { type: 'boolean' },
        service: { type: 'string' },
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
    terraform: !v['no-terraform'],
    scan: !v['no-scan'],
    service: v.service,
    log: (line) => console.log(`check:templates: ${line}`),
  })
  if (result.terraformSkipped) console.log(`check:templates: terraform skipped: ${result.terraformSkipped}`)
  process.stdout.write(formatReport(result.findings))
  const files = new Set(result.findings.map((f) => f.file)).size
  console.log(
    `\ncheck:templates: ${result.findings.length === 0 ? 'ok' : `${result.findings.length} finding(s) in ${files} file(s)`}; ` +
      `${result.configurations} configurations, ${result.terraformTrees} Terraform trees validated, ` +
      `${result.scannedTrees} scanned by checkov and tflint; ${result.seconds.toFixed(1)} s`,
  )
  const { reused, ran } = storeUse
  if (reused > 0)
    console.log(
      `check:templates: ${reused} of ${reused + ran} tool runs answered by the scan store (same content, same tool; IES_SCAN_CACHE=off runs them afresh)`,
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
