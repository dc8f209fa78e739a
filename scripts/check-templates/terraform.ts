// `terraform fmt -check` and `terraform validate` over generated trees, with the provider mirror
// of this checkout (scripts/terraform/build-mirror.sh; no registry). Trees whose Terraform files
// are the same are checked once (validate reads no variable values), and a folder whose content
// Terraform has already checked gets the stored result (scan-cache.ts).
import { execFile, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { writeTree, type TreeFile, type Finding } from '@ies/processor-lib'
import { ensureCliConfig, toolsDir } from '../terraform/cli-config.ts'
import { cachedRun } from './scan-cache.ts'

export interface GeneratedTree {
  /** The configurations that produced this tree (names from the gate matrix). */
  names: string[]
  files: readonly TreeFile[]
}

/** Why Terraform cannot run here, or null when it can. */
export function terraformMissing(): string | null {
  const version = spawnSync('terraform', ['version'], { encoding: 'utf8', env: { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null' } })
  if (version.status !== 0) return 'terraform is not installed'
  if (!ensureCliConfig()) return 'the provider mirror is not built (scripts/terraform/build-mirror.sh; provision.sh runs it)'
  return null
}

/**
 * The environment of every terraform run: the mirror's CLI config and none of the caller's TF_* or
 * AWS_* settings (no registry, no real account), plus `extra`.
 */
export function tfEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!/^(TF_|AWS_|CHECKPOINT_)/.test(k)) env[k] = v
  return { ...env, TF_CLI_CONFIG_FILE: ensureCliConfig()!, TF_IN_AUTOMATION: '1', TF_INPUT: '0', CHECKPOINT_DISABLE: '1', ...extra }
}

export interface TerraformRun {
  code: number
  stdout: string
  stderr: string
  ms: number
}

export function terraform(dir: string, args: string[], env: NodeJS.ProcessEnv = tfEnv()): Promise<TerraformRun> {
  const started = Date.now()
  return new Promise((resolve) => {
    execFile('terraform', [`-chdir=${dir}`, ...args], { env, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, ms: Date.now() - started })
    })
  })
}

/** Group trees by the content of their Terraform files: one validation per distinct tree. */
export function distinctTrees(trees: readonly GeneratedTree[], select: (p: string) => boolean): GeneratedTree[] {
  const byHash = new Map<string, GeneratedTree>()
  for (const tree of trees) {
    const hash = createHash('sha256')
    for (const f of tree.files) if (select(f.path)) hash.update(`${f.path}\0`).update(f.content).update('\0')
    const key = hash.digest('hex')
    const seen = byHash.get(key)
    if (seen) seen.names.push(...tree.names)
    else byHash.set(key, { names: [...tree.names], files: tree.files })
  }
  return [...byHash.values()]
}

export interface Diagnostic {
  severity: 'error' | 'warning'
  summary: string
  detail?: string
  range?: { filename: string; start: { line: number } }
}

/**
 * fmt -check and validate of the trees (written under `work`); a finding per diagnostic, its file
 * relative to the templates root (`terraform/...`), the configurations named in the message.
 *
 * One Terraform run covers every tree: the trees are written side by side (`t<i>/`) under a root
 * module that calls each tree's `terraform/` folder as a module, so `terraform fmt -check -recursive`
 * and `terraform validate` (which validates every module a root calls) start the aws provider once
 * instead of once per tree (measured: about a fifth of the CPU of one validate per tree). A tree the
 * combined run finds a problem in is validated again alone, as the root module it is in a generated
 * repository, and that run's diagnostics are reported (so a construct only a root module may hold
 * is never blamed on the combination).
 */
export async function checkTerraform(trees: readonly GeneratedTree[], work: string): Promise<{ findings: Finding[]; validated: number }> {
  const findings: Finding[] = []
  const isTf = (p: string) => p.startsWith('terraform/') && /\.(tf|tfvars)$/.test(p)
  const fmtTrees = distinctTrees(trees, isTf)
  const validateTrees = distinctTrees(trees, (p) => isTf(p) && !p.endsWith('.tfvars'))
  const where = (t: GeneratedTree) => ` (configuration: ${t.names.join(', ')})`

  // fmt: every distinct tree (tfvars included), one run.
  const fmtRoot = path.join(work, 'fmt')
  await Promise.all(fmtTrees.map((tree, i) => writeTree(path.join(fmtRoot, `t${i}`), tree.files)))
  const fmtArgs = ['fmt', '-check', '-recursive', '-list=true']
  const fmt = await cachedRun([...terraformIdentity(), ...fmtArgs], [fmtRoot], async () => {
    const run = await terraform(fmtRoot, fmtArgs)
    // a run that failed without listing files says why in a message that may name this temporary folder
    return { value: { code: run.code, stdout: run.stdout, stderr: run.stderr }, keep: run.code === 0 || !!run.stdout.trim() }
  })
  for (const line of fmt.stdout.split('\n').filter(Boolean)) {
    const m = /^t(\d+)\/(.*)$/.exec(line)
    const tree = m ? fmtTrees[Number(m[1])] : undefined
    findings.push(finding('FORMAT', m ? m[2] : line, 0, `terraform fmt -check: not in canonical form${tree ? where(tree) : ''}`))
  }
  if (fmt.code !== 0 && !fmt.stdout.trim()) findings.push(finding('FORMAT', 'terraform', 0, `terraform fmt failed: ${oneLine(fmt.stderr)}`))

  // validate: every distinct tree as a module of one root, one run.
  const root = path.join(work, 'validate')
  await Promise.all(validateTrees.map((tree, i) => writeTree(path.join(root, `t${i}`), tree.files)))
  await writeFile(
    path.join(root, 'main.tf'),
    validateTrees.map((_, i) => `module "t${i}" {\n  source = "./t${i}/terraform"\n}\n`).join('\n'),
  )
  const combined = await validateRoot(root)
  if ('failure' in combined) {
    findings.push(finding('TERRAFORM_VALIDATE', 'terraform', 0, combined.failure))
    return { findings, validated: 0 }
  }
  const suspects = new Set<number>()
  for (const d of combined.diagnostics) {
    const m = d.range ? /^t(\d+)\//.exec(d.range.filename) : null
    if (m) suspects.add(Number(m[1]))
    else findings.push(diagnosticFinding(d, 'terraform', ' (all trees)'))
  }
  for (const i of [...suspects].sort((a, b) => a - b)) {
    const alone = await validateRoot(path.join(root, `t${i}`, 'terraform'))
    if ('failure' in alone) findings.push(finding('TERRAFORM_VALIDATE', 'terraform', 0, alone.failure + where(validateTrees[i])))
    else for (const d of alone.diagnostics) findings.push(diagnosticFinding(d, 'terraform/', where(validateTrees[i])))
  }
  return { findings, validated: validateTrees.length }
}

/**
 * `terraform init -backend=false` and `terraform validate -json` of a root module folder; a folder
 * whose content was validated before (same Terraform, same providers) gets the stored diagnostics.
 */
function validateRoot(dir: string): Promise<{ diagnostics: Diagnostic[] } | { failure: string }> {
  return cachedRun([...terraformIdentity(), 'init -backend=false', 'validate -json'], [dir], async () => {
    const value = await initAndValidate(dir)
    return { value, keep: 'diagnostics' in value }
  })
}

let identity: string[] | undefined
/**
 * What Terraform's verdict on a folder depends on besides its files: Terraform's version and the
 * mirror's providers (each file's path, size and time: the archive stand-in is built here).
 */
function terraformIdentity(): string[] {
  if (identity) return identity
  const version = spawnSync('terraform', ['version', '-json'], { encoding: 'utf8', env: tfEnv() }).stdout
  const mirror = path.join(toolsDir(), 'mirror')
  const providers = (readdirSync(mirror, { recursive: true, encoding: 'utf8' }) as string[]).sort().map((rel) => {
    const info = statSync(path.join(mirror, rel))
    return info.isFile() ? `${rel} ${info.size} ${info.mtimeMs}` : rel
  })
  const config = readFileSync(ensureCliConfig()!, 'utf8').replace(mirror, '<mirror>')
  identity = ['terraform', (JSON.parse(version) as { terraform_version: string }).terraform_version, config, ...providers]
  return identity
}

async function initAndValidate(dir: string): Promise<{ diagnostics: Diagnostic[] } | { failure: string }> {
  const init = await terraform(dir, ['init', '-backend=false', '-input=false', '-no-color'])
  if (init.code !== 0) return { failure: `terraform init failed: ${oneLine(init.stderr || init.stdout)}` }
  const run = await terraform(dir, ['validate', '-json', '-no-color'])
  try {
    return { diagnostics: (JSON.parse(run.stdout) as { diagnostics: Diagnostic[] }).diagnostics }
  } catch {
    return { failure: `terraform validate failed: ${oneLine(run.stderr || run.stdout)}` }
  }
}

function diagnosticFinding(d: Diagnostic, prefix: string, suffix: string): Finding {
  const file = d.range ? `${prefix}${d.range.filename}` : prefix.replace(/\/$/, '')
  return finding(
    'TERRAFORM_VALIDATE',
    file,
    d.range?.start.line ?? 0,
    `${d.severity}: ${d.summary}${d.detail ? `: ${oneLine(d.detail)}` : ''}${suffix}`,
  )
}

function finding(code: Finding['code'], file: string, line: number, message: string): Finding {
  return { code, severity: 'error', file, line, path: null, message }
}

export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim()
}
