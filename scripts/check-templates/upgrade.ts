// `npm run check:templates -- --upgrade-from <commit>`: would the template change since <commit>
// replace or destroy something that holds data in an environment made with the older templates?
//
// The every-service tree (with a domain) is generated from the templates of <commit> and applied
// against moto (moto-stack.ts, its gaps left out); the tree generated from the templates now is then
// planned against that state, as an upgrade's pipeline would plan it. A replacement or destruction
// of a resource that holds data or identity (templates/data-holders.json) is a finding, unless the change declares
// it in UPGRADING.md (an entry the older templates did not have); a declared one is printed as a
// warning, in the entry's words, which is also what the customer reads in the upgrade's preview
// (UPGRADING.md is part of every generated repository).
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { extractCatalog, type Finding } from '@ies/processor-lib'
import { startMoto } from '../services/moto.ts'
import { configFrom, SAMPLE_DOMAIN } from './configs.ts'
import { configAddress, gapsOf } from './moto-gaps.ts'
import { DATA_HOLDERS_FILE, dataKindOf, parseDataHolders, type DataHolders } from '../../server/src/jobs/plan/data-holders.ts'
import { formatReport } from './report.ts'
import { terraformMissing } from './terraform.ts'
import { applyWithoutGaps, createStateBucket, initBackend, motoEnv, plan, writeGenerated, type ResourceChange } from './moto-stack.ts'

const run = promisify(execFile)

/** The file of the templates where a change declares the replacements it intends. */
export const DECLARATIONS_FILE = 'terraform/UPGRADING.md'

/**
 * The resource types that hold data: the templates' own list (templates/data-holders.json), which
 * the server's plans read too (server/src/jobs/plan/data-holders.ts).
 */
export async function dataHoldersIn(templatesDir: string): Promise<DataHolders> {
  return parseDataHolders(await readFile(path.join(templatesDir, DATA_HOLDERS_FILE), 'utf8'))
}

/** One declared replacement: `- \`<resource address>\` is replaced: <what the customer should know>` */
export interface Declaration {
  address: string
  words: string
}

export function parseDeclarations(text: string): Declaration[] {
  const out: Declaration[] = []
  for (const m of text.matchAll(/^- `([^`]+)` is (?:replaced|destroyed): (.+)$/gm))
    out.push({ address: configAddress(m[1]!), words: m[2]!.trim() })
  return out
}

export interface UpgradeResult {
  findings: Finding[]
  /** Declared replacements the plan shows, in the declaration's words. */
  warnings: string[]
  /** Why nothing was checked (templates unchanged), or null. */
  skipped: string | null
  /** The plan of the new tree against the old state, for the curious. */
  changes: ResourceChange[]
}

/**
 * A replacement or destruction the plan shows. Left out: tainted resources (an apply that failed)
 * and replacements forced only by an attribute moto does not answer back (its `read` gaps).
 */
function losesData(c: ResourceChange, holders: DataHolders): string | null {
  if (!c.change.actions.includes('delete') || c.action_reason === 'replace_because_tainted') return null
  const unread = gapsOf('read')
    .filter((g) => g.address === configAddress(c.address))
    .map((g) => g.attribute)
  const paths = c.change.replace_paths ?? []
  if (paths.length > 0 && paths.every((p) => unread.includes(String(p[0])))) return null
  return dataKindOf(holders, c.type, c.change.before ?? {})
}

async function git(cwd: string, args: string[]): Promise<string> {
  return (await run('git', ['-C', cwd, ...args], { maxBuffer: 256 * 1024 * 1024 })).stdout
}

/**
 * The commit CI checks an upgrade from: IES_UPGRADE_FROM when set (the branch a change merges
 * into, say), else the templates before their last change (the parent of the last commit that
 * touched the folder). `skipped` says why there is none (a shallow clone without that commit).
 */
export async function upgradeBase(templatesDir: string): Promise<{ commit: string } | { skipped: string }> {
  const top = (await git(templatesDir, ['rev-parse', '--show-toplevel']).catch(() => '')).trim()
  if (!top) return { skipped: `${templatesDir} is not in a git checkout` }
  const rel = path.relative(top, path.resolve(templatesDir)) || '.'
  const last = process.env.IES_UPGRADE_FROM ? '' : (await git(top, ['rev-list', '-n', '1', 'HEAD', '--', rel])).trim()
  const from = process.env.IES_UPGRADE_FROM || `${last}^`
  try {
    return { commit: (await git(top, ['rev-parse', '-q', '--verify', `${from}^{commit}`])).trim() }
  } catch {
    return { skipped: `${from} is not a commit of this clone (shallow? git fetch --deepen=1)` }
  }
}

/** The templates folder as it was at `commit`, extracted under `work`; throws when the commit is unknown. */
export async function templatesAt(templatesDir: string, commit: string, work: string): Promise<{ dir: string; changed: boolean }> {
  const top = (await git(templatesDir, ['rev-parse', '--show-toplevel'])).trim()
  const rel = path.relative(top, path.resolve(templatesDir)) || '.'
  try {
    await git(top, ['cat-file', '-e', `${commit}^{commit}`])
  } catch {
    throw new Error(`--upgrade-from ${commit}: no such commit in ${top}`)
  }
  const diff = await git(top, ['diff', '--name-only', commit, '--', rel])
  const untracked = await git(top, ['ls-files', '--others', '--exclude-standard', '--', rel])
  const dest = path.join(work, 'old-templates')
  await mkdir(dest, { recursive: true })
  await run('sh', ['-c', 'git -C "$1" archive --format=tar "$2" -- "$3" | tar -x -C "$4"', 'sh', top, commit, rel, dest])
  return { dir: path.join(dest, rel), changed: (diff + untracked).trim() !== '' }
}

export async function checkUpgrade(opts: { templatesDir: string; from: string; log?: (line: string) => void }): Promise<UpgradeResult> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'ies-upgrade-check-'))
  try {
    const old = await templatesAt(opts.templatesDir, opts.from, work)
    if (!old.changed) return { findings: [], warnings: [], skipped: `templates/ did not change since ${opts.from}`, changes: [] }
    const base = await applyOlder(old.dir, opts.from, work, opts.log)
    try {
      return await planUpgrade(base, opts.templatesDir)
    } finally {
      await base.stop()
    }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

/** An environment made from older templates: their every-service tree applied to its own moto. */
export interface OlderEnvironment {
  /** What the older templates are called in findings (a commit). */
  label: string
  templatesDir: string
  env: NodeJS.ProcessEnv
  work: string
  log: (line: string) => void
  stop(): Promise<void>
}

const everyService = async (templatesDir: string) =>
  configFrom(await extractCatalog({ templatesDir, provider: 'aws' }), { enabled: true, domain: SAMPLE_DOMAIN })

/** Applies the every-service tree of the older templates to a new moto (its gaps left out, as the apply test does). */
export async function applyOlder(
  templatesDir: string,
  label: string,
  work: string,
  log: (line: string) => void = () => {},
): Promise<OlderEnvironment> {
  const moto = await startMoto({ managedPolicies: true })
  try {
    const env = motoEnv(moto.endpoint)
    const config = await everyService(templatesDir)
    await createStateBucket(moto.endpoint, config.terraformBackend)
    const tree = await writeGenerated(templatesDir, config, path.join(work, 'older'))
    await initBackend(tree, env)
    const planned = await plan(tree, env)
    if (planned.run.code !== 0)
      throw new Error(`the tree of ${label} does not plan: ${planned.diagnostics.map((d) => d.summary).join('; ')}`)
    const applied = await applyWithoutGaps(tree, env, planned)
    log(`upgrade: applied the tree of ${label} to moto (${applied.created} resources, ${(applied.run.ms / 1000).toFixed(0)} s)`)
    for (const f of applied.failures) log(`upgrade: (the older tree's own apply) ${f}`)
    return { label, templatesDir, env, work, log, stop: () => moto.stop() }
  } catch (e) {
    await moto.stop()
    throw e
  }
}

let upgrades = 0

/** Plans the every-service tree of `templatesDir` against the older environment's state and judges the plan. */
export async function planUpgrade(older: OlderEnvironment, templatesDir: string): Promise<UpgradeResult> {
  const tree = await writeGenerated(templatesDir, await everyService(templatesDir), path.join(older.work, `upgrade-${++upgrades}`))
  await initBackend(tree, older.env)
  const upgrade = await plan(tree, older.env)
  older.log(`upgrade: planned the tree of ${templatesDir} against that state (${JSON.stringify(upgrade.summary)})`)
  if (upgrade.run.code !== 0) {
    const why = upgrade.diagnostics.map((d) => `${d.summary}${d.detail ? `: ${d.detail}` : ''}`).join('; ')
    const message = `the current tree does not plan against the state of ${older.label}: ${why}`
    return { findings: [upgradeFinding(message)], warnings: [], skipped: null, changes: [] }
  }
  return { ...(await judge(upgrade.changes, older, templatesDir)), skipped: null, changes: upgrade.changes }
}

/** Each data holder the upgrade plan replaces or destroys: declared (a warning) or a finding. */
async function judge(changes: ResourceChange[], older: OlderEnvironment, templatesDir: string) {
  const read = (dir: string) => readFile(path.join(dir, DECLARATIONS_FILE), 'utf8').catch(() => '')
  const before = new Set(parseDeclarations(await read(older.templatesDir)).map((d) => `${d.address}\0${d.words}`))
  const declared = parseDeclarations(await read(templatesDir)).filter((d) => !before.has(`${d.address}\0${d.words}`))
  const findings: Finding[] = []
  const warnings: string[] = []
  const holders = await dataHoldersIn(templatesDir)
  for (const c of changes) {
    const kind = losesData(c, holders)
    if (!kind) continue
    const verb = c.change.actions.includes('create') ? 'replaced' : 'destroyed'
    const declaration = declared.find((d) => d.address === configAddress(c.address))
    if (declaration) {
      warnings.push(`${c.address} (${kind}) is ${verb}: ${declaration.words}`)
      continue
    }
    const moved = c.previous_address ? ` (moved from ${c.previous_address})` : ''
    const forcedBy = (c.change.replace_paths ?? []).map((p) => p.join('.')).join(', ')
    findings.push(
      upgradeFinding(
        `${c.address}${moved}, a ${kind} (${c.type}), would be ${verb} in environments made from ${older.label}` +
          `${c.action_reason ? ` (${c.action_reason}${forcedBy ? `: ${forcedBy}` : ''})` : ''}: its data would be lost`,
      ),
    )
  }
  return { findings, warnings }
}

function upgradeFinding(message: string): Finding {
  return { code: 'UPGRADE_REPLACES', severity: 'error', file: 'terraform', line: 0, path: null, message }
}

/** The command: prints the findings (FindingSet report) and the declared replacements; 0 when none is undeclared. */
export async function upgradeCommand(templatesDir: string, from: string): Promise<number> {
  const started = performance.now()
  const say = (line: string) => console.log(`check:templates: ${line}`)
  const missing = terraformMissing()
  if (missing) {
    console.error(`check:templates: --upgrade-from needs Terraform and the provider mirror: ${missing}`)
    return 1
  }
  const result = await checkUpgrade({ templatesDir, from, log: say })
  if (result.skipped) {
    say(`upgrade check skipped: ${result.skipped}`)
    return 0
  }
  for (const w of result.warnings) say(`warning: declared in ${DECLARATIONS_FILE}: ${w}`)
  process.stdout.write(formatReport(result.findings))
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  say(`upgrade from ${from}: ${result.findings.length === 0 ? 'ok' : `${result.findings.length} undeclared replacement(s)`}; ${seconds} s`)
  return result.findings.length === 0 ? 0 : 1
}
