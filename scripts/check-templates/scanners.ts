// The security scanners a customer runs on a generated repository, and the rules a templates tree
// must pass under them: checkov (policy checks of the Terraform; provisioned in .tools/checkov) and
// tflint with the tree's recommended preset (terraform/.tflint.hcl; .tools/bin/tflint). One source
// for `check:templates` (scanTrees below) and test/templates/security-scan.test.ts.
//
// The rules: no failed checkov check, on the resources a tree deploys nor in any module folder (a
// disabled service's folder is checked without values, as a customer's `checkov -d terraform`
// does); a skipped check carries its reason inline, `#checkov:skip=<ID>:<reason>`, of at least
// SKIP_REASON_MIN characters; no tflint issue.
import { execFile, execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, readFile, symlink } from 'node:fs/promises'
import path from 'node:path'
import { writeTree, type Finding } from '@ies/processor-lib'
import { REPO_ROOT } from '../terraform/cli-config.ts'
import { cachedRun, checkovInstallation, envSettings } from './scan-cache.ts'
import { distinctTrees, oneLine, type GeneratedTree } from './terraform.ts'
import { unusedDeclarationFix } from './unused-declarations.ts'

export const SCANNERS = {
  checkov: path.join(REPO_ROOT, '.tools', 'checkov', 'bin', 'checkov'),
  tflint: path.join(REPO_ROOT, '.tools', 'bin', 'tflint'),
}

/** A reviewer can read why a check does not apply: a reason of at least this many characters. */
export const SKIP_REASON_MIN = 30

/** Why a scanner cannot run here (the first missing one), or null when both can. */
export function missingScanner(tools: Record<string, string> = SCANNERS): string | null {
  for (const [name, file] of Object.entries(tools)) {
    if (!existsSync(file)) return `${name} is not installed at ${path.relative(REPO_ROOT, file)}: run npm run provision`
  }
  return null
}

export interface ScanRun {
  code: number
  stdout: string
  stderr: string
}

export function runTool(cmd: string, args: string[], cwd?: string): Promise<ScanRun> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, CHECKPOINT_DISABLE: '1' } }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    )
  })
}

export interface CheckovCheck {
  id: string
  /** checkov's title of the check ("Ensure ..."): what passing it takes. */
  name: string
  /** checkov's guideline address, when its check database is available (not with --skip-download). */
  guideline?: string
  resource: string
  /** Relative to the folder scanned, `/` separators. */
  file: string
  line: number
  reason?: string
}
export interface CheckovResult {
  passed: CheckovCheck[]
  failed: CheckovCheck[]
  skipped: CheckovCheck[]
}

interface RawCheck {
  check_id: string
  check_name?: string
  guideline?: string | null
  resource: string
  file_path: string
  file_line_range: number[]
  check_result: { suppress_comment?: string }
}

const CHECKOV_ARGS = ['--framework', 'terraform', '-o', 'json', '--skip-download']

/**
 * checkov over a folder of Terraform (a tree's terraform/, or several trees side by side). checkov
 * evaluates the resources reached from each root module (`module.<service>.…`, with the tree's
 * values) and, on its own, every module folder no module block calls (without values). A folder
 * whose content checkov has already scanned gets the stored result (scan-cache.ts).
 */
export function checkov(dir: string): Promise<CheckovResult> {
  const key = ['checkov', checkovInstallation(SCANNERS.checkov), ...CHECKOV_ARGS, envSettings(process.env, /^(CKV_|CHECKOV_|BC_)/)]
  return cachedRun(key, [dir], async () => ({ value: await runCheckov(dir), keep: true }))
}

async function runCheckov(dir: string): Promise<CheckovResult> {
  const r = await runTool(SCANNERS.checkov, ['-d', dir, ...CHECKOV_ARGS])
  let parsed: unknown
  try {
    parsed = JSON.parse(r.stdout)
  } catch {
    throw new Error(`checkov gave no JSON (exit ${r.code}): ${oneLine(r.stderr.slice(-2000))}`)
  }
  const reports = (Array.isArray(parsed) ? parsed : [parsed]) as { results?: Record<string, RawCheck[]> }[]
  const out: CheckovResult = { passed: [], failed: [], skipped: [] }
  const check = (c: RawCheck): CheckovCheck => ({
    id: c.check_id,
    name: c.check_name ?? c.check_id,
    guideline: c.guideline ?? undefined,
    resource: c.resource,
    file: c.file_path.replace(/^\//, ''),
    line: c.file_line_range[0] ?? 0,
    reason: c.check_result.suppress_comment,
  })
  for (const report of reports) {
    // An empty tree gives a summary without results.
    out.passed.push(...(report.results?.passed_checks ?? []).map(check))
    out.failed.push(...(report.results?.failed_checks ?? []).map(check))
    out.skipped.push(...(report.results?.skipped_checks ?? []).map(check))
  }
  // checkov's order of checks changes from run to run: sorted, two runs over the same folder give the same result
  for (const list of [out.passed, out.failed, out.skipped]) list.sort(byPlace)
  return out
}

const byPlace = (a: CheckovCheck, b: CheckovCheck) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.resource.localeCompare(b.resource) || a.id.localeCompare(b.id)

export interface LintIssue {
  rule: string
  message: string
  /** The rule's documentation address. */
  link: string
  /** Relative to the folder linted. */
  file: string
  line: number
}

const TFLINT_ARGS = ['--recursive', '--format=json', '--force']

/** `tflint --version` (its bundled ruleset's too) of each tflint binary, read once. */
const tflintVersions = new Map<string, string>()
/**
 * tflint --recursive over a folder, with the given configuration (a tree's terraform/.tflint.hcl).
 * A folder and configuration whose content tflint has already linted get the stored result
 * (scan-cache.ts).
 */
export async function tflint(dir: string, config: string): Promise<LintIssue[]> {
  const bin = SCANNERS.tflint
  if (!tflintVersions.has(bin)) tflintVersions.set(bin, execFileSync(bin, ['--version'], { encoding: 'utf8' }))
  const key = ['tflint', tflintVersions.get(bin), ...TFLINT_ARGS, await readFile(config, 'utf8'), envSettings(process.env, /^TFLINT_/)]
  return cachedRun(key, [dir], async () => ({ value: await runTflint(dir, config), keep: true }))
}

async function runTflint(dir: string, config: string): Promise<LintIssue[]> {
  const r = await runTool(SCANNERS.tflint, [`--chdir=${dir}`, `--config=${config}`, ...TFLINT_ARGS], dir)
  let parsed: {
    issues: { rule: { name: string; link?: string }; message: string; range: { filename: string; start: { line: number } } }[]
    errors: { message: string }[]
  }
  try {
    parsed = JSON.parse(r.stdout)
  } catch {
    throw new Error(`tflint gave no JSON (exit ${r.code}): ${oneLine(`${r.stdout.slice(-1000)} ${r.stderr.slice(-1000)}`)}`)
  }
  if (parsed.errors.length) throw new Error(`tflint errors: ${parsed.errors.map((e) => e.message).join('; ')}`)
  return parsed.issues
    .map((i) => ({
      rule: i.rule.name,
      message: i.message,
      link: i.rule.link ?? '',
      file: path.relative(dir, path.resolve(dir, i.range.filename)).split(path.sep).join('/'),
      line: i.range.start.line,
    }))
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.rule.localeCompare(b.rule) || a.message.localeCompare(b.message))
}

/** The checks of resources a tree deploys: reached through a module block of its root module. */
export function deployed(c: CheckovResult, rootMainTf: string): CheckovResult {
  const calls = [...rootMainTf.matchAll(/^module "([\w-]+)"/gm)].map((m) => `module.${m[1]}.`)
  const keep = (x: CheckovCheck) => calls.some((p) => x.resource.startsWith(p))
  return { passed: c.passed.filter(keep), failed: c.failed.filter(keep), skipped: c.skipped.filter(keep) }
}

/** passed / (passed + failed); skipped checks are left out (each carries its reason). */
export const passRate = (c: CheckovResult) =>
  c.passed.length + c.failed.length === 0 ? 1 : c.passed.length / (c.passed.length + c.failed.length)

/** A scanner finding: the rule it breaks (for deduplication) and its own fix (printed under it). */
export type ScanFinding = Finding & { rule: string; fix: string }

/** The checkov results that break the rules: failed checks, skips without a readable reason. */
export function checkovFindings(c: CheckovResult): ScanFinding[] {
  const failed = c.failed.map((x) => ({
    ...scanFinding('CHECKOV', x.file, x.line, x.id, `${x.id} failed on ${x.resource}: ${x.name}`),
    fix: `${x.name}${x.guideline ? ` (${x.guideline})` : ''}; or, where it cannot apply, #checkov:skip=${x.id}:<why, ${SKIP_REASON_MIN}+ characters> inside the block`,
  }))
  const unexplained = c.skipped
    .filter((x) => (x.reason ?? '').trim().length < SKIP_REASON_MIN)
    .map((x) => ({
      ...scanFinding(
        'CHECKOV',
        x.file,
        x.line,
        `${x.id}:skip`,
        `${x.id} skipped on ${x.resource} without a reason a reviewer can read ("${x.reason ?? ''}")`,
      ),
      fix: `write why ${x.id} does not apply after the skip: #checkov:skip=${x.id}:<at least ${SKIP_REASON_MIN} characters>`,
    }))
  return [...failed, ...unexplained]
}

export function tflintFindings(issues: readonly LintIssue[]): ScanFinding[] {
  return issues.map((i) => ({
    ...scanFinding('TFLINT', i.file, i.line, i.rule, `${i.rule}: ${i.message}`),
    fix: `${i.message}${i.link ? ` (${i.link})` : ''}`,
  }))
}

function scanFinding(code: 'CHECKOV' | 'TFLINT', file: string, line: number, rule: string, message: string): ScanFinding {
  return { code, severity: 'error', file, line, path: null, message, rule, fix: '' }
}

export interface TreeScan {
  /** The configurations whose trees showed these findings. */
  names: string[]
  findings: ScanFinding[]
  /** checkov's passed checks on the resources the tree deploys (what shows checkov evaluated it with its values). */
  deployedPassed: number
}

const MODULES = 'terraform/modules/'

/**
 * checkov and tflint over generated trees, in parallel, each scanner once over every distinct tree
 * (the trees side by side under `work/scan/t<i>/`). A finding's file and line are the template's:
 * generation keeps every path and line of a .tf file (a disabled section is commented out in place).
 *
 * The module folders are written once per distinct content, in the first tree that has it and in the
 * tree calling the fewest modules (where checkov checks the uncalled folders without values, as a
 * customer's `checkov -d terraform` does); every other tree links `terraform/modules` to them. The
 * scanners then evaluate each tree's module calls with its values but read each folder once
 * (measured: a third of checkov's time and a seventh of tflint's over the gate matrix).
 *
 * `tools` leaves a scanner out (a test about one scanner's findings does not start the other).
 */
export async function scanTrees(
  trees: readonly GeneratedTree[],
  work: string,
  templatesDir: string,
  tools: readonly (keyof typeof SCANNERS)[] = ['checkov', 'tflint'],
): Promise<TreeScan[]> {
  const isTf = (p: string) => p.startsWith('terraform/') && /\.(tf|tfvars)$/.test(p)
  const distinct = distinctTrees(trees, isTf)
  const root = path.join(work, 'scan')
  await mkdir(root, { recursive: true })
  const calls = (t: GeneratedTree) =>
    (
      t.files
        .find((f) => f.path === 'terraform/main.tf')
        ?.content.toString()
        .match(/^module "/gm) ?? []
    ).length
  const fewest = distinct.reduce((best, t, i) => (calls(t) < calls(distinct[best]) ? i : best), 0)
  const owners = new Map<string, number>()
  /** The tree whose module folders tree i reads (its own, or the ones it links to). */
  const foldersOf: number[] = []
  await Promise.all(
    distinct.map(async (tree, i) => {
      const hash = createHash('sha256')
      for (const f of tree.files) if (isTf(f.path) && f.path.startsWith(MODULES)) hash.update(`${f.path}\0`).update(f.content).update('\0')
      const key = hash.digest('hex')
      const owner = owners.get(key)
      const own = owner === undefined || i === fewest
      if (owner === undefined) owners.set(key, i)
      foldersOf[i] = own ? i : owner
      await writeTree(
        path.join(root, `t${i}`),
        tree.files.filter((f) => isTf(f.path) && (own || !f.path.startsWith(MODULES))),
      )
      if (!own) await symlink(path.join('..', '..', `t${owner}`, MODULES), path.join(root, `t${i}`, MODULES.slice(0, -1)))
    }),
  )
  const scans: TreeScan[] = distinct.map((t) => ({ names: t.names, findings: [], deployedPassed: 0 }))
  // The tree's own tflint configuration; a tree without one is linted under the repository's.
  let config = path.join(templatesDir, 'terraform', '.tflint.hcl')
  if (!existsSync(config)) {
    config = path.join(work, 'tflint.hcl')
    await copyFile(path.join(REPO_ROOT, 'templates/terraform/.tflint.hcl'), config)
  }
  // A scanner that cannot read the trees (a tree Terraform itself refuses, say) is one finding, not a crash.
  const failure = (code: 'CHECKOV' | 'TFLINT') => (e: unknown) => {
    scans[0]?.findings.push({ ...scanFinding(code, 'terraform', 0, 'run', (e as Error).message), fix: 'see the message' })
    return null
  }
  const [checks, issues] = await Promise.all([
    tools.includes('checkov') ? checkov(root).catch(failure('CHECKOV')) : null,
    tools.includes('tflint') ? tflint(root, config).catch(failure('TFLINT')) : null,
  ])
  // `t<i>/terraform/x.tf` → tree i, template file `terraform/x.tf`
  const place = (list: ScanFinding[]) => {
    for (const f of list) {
      const m = /^t(\d+)\/(.*)$/.exec(f.file)
      const scan = m ? scans[Number(m[1])] : undefined
      if (scan) scan.findings.push({ ...f, file: m![2] })
      else scans[0]?.findings.push(f)
    }
  }
  if (checks) {
    place(checkovFindings(checks))
    distinct.forEach((tree, i) => {
      const main = tree.files.find((f) => f.path === 'terraform/main.tf')?.content.toString() ?? ''
      scans[i]!.deployedPassed = deployed(
        { passed: checks.passed.filter((c) => c.file.startsWith(`t${i}/`)), failed: [], skipped: [] },
        main,
      ).passed.length
    })
  }
  if (issues) {
    // tflint reads a module folder without the values of its callers: what it finds in the folder a
    // tree owns holds for every tree that links to it.
    place(
      tflintFindings(issues).flatMap((f) => {
        const m = /^t(\d+)\/(terraform\/modules\/.*)$/.exec(f.file)
        if (!m) return [f]
        return foldersOf.flatMap((owner, i) => (owner === Number(m[1]) ? [{ ...f, file: `t${i}/${m[2]}` }] : []))
      }),
    )
  }
  // A service's root variable declared outside its section: the project's rule as the fix.
  const ownFix = unusedDeclarationFix(templatesDir)
  for (const scan of scans) for (const f of scan.findings) f.fix = ownFix(f) ?? f.fix
  return scans
}
