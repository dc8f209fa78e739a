// One plan: the tree's terraform/ folder written into a directory of its own (removed afterwards),
// `terraform init` with the tree's S3 state backend into the environment's warm data directory (only
// when it is not initialised for this tree yet: warm-dirs.ts), `terraform plan -lock=false -refresh=true -out`
// (drift: `-refresh-only`), `terraform show -json`, read into the API's result. A plan never takes
// the state lock and never writes state. A failure is a JobFailure with Terraform's own words, the
// credential cut out of them.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { PLAN_CODES, type PlanResult } from '@ies/api/schemas/plans'
import { JobFailure } from '../../core/job-failure.ts'
import { redact } from '../../core/redaction.ts'
import type { DataHolders } from './data-holders.ts'
import { configuredAttributes, dataAtRisk, driftOf, resourcesOf, summaryOf, type JsonPlan } from './plan-reading.ts'
import { terraform, terraformEnv, type CloudAccess, type PlanSettings, type TerraformRun } from './terraform.ts'
import { initFingerprint, type FingerprintFile, type WarmDir, type WarmDirs } from './warm-dirs.ts'

/** A file of the tree to plan: its path in the repository and a way to read it. */
export interface TreeFile {
  path: string
  read: () => Promise<Buffer>
}

export type PlanKind = PlanResult['kind']

export interface PlanRun {
  settings: PlanSettings
  cloud: CloudAccess
  holders: DataHolders
  kind: PlanKind
  /** The environment planned: its warm Terraform directory is reused by its next plans (warm-dirs.ts). */
  environmentId: string
  warm: WarmDirs
  /** The repository's files (only terraform/ is written). */
  files: readonly TreeFile[]
  /** Called with the plan's directory once it exists (tests look into it while Terraform runs). */
  onDirectory?: (dir: string) => void
}

export type PlanOutcome = Omit<PlanResult, 'branch' | 'templatesCommit'>

/** What AWS answers when it refuses a credential (in Terraform's error text). */
const REFUSED =
  /validating provider credentials|InvalidClientTokenId|SignatureDoesNotMatch|InvalidAccessKeyId|ExpiredToken|UnrecognizedClientException|AuthFailure|security token included in the request is invalid|No valid credential sources found/i

/** The dependency lock file Terraform's init writes beside the configuration. */
const LOCK_FILE = '.terraform.lock.hcl'

/** What Terraform says when its data directory does not fit the configuration. */
const NEEDS_INIT =
  /Backend initialization required|Backend configuration changed|Module not installed|Module source has changed|Inconsistent dependency lock file|Required plugins are not installed|please run "terraform init"/i

/** The secrets that may show in Terraform's output: the credential's secret parts. */
export const cloudSecrets = (cloud: CloudAccess): string[] => [cloud.secretAccessKey, ...(cloud.sessionToken ? [cloud.sessionToken] : [])]

export async function runPlan(run: PlanRun): Promise<PlanOutcome> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-plan-'))
  try {
    run.onDirectory?.(dir)
    const root = path.join(dir, 'terraform')
    const written = await writeTerraformFiles(root, run.files)
    const backend = run.cloud.endpointUrl ? ['-backend-config=use_path_style=true'] : []
    const { terraformBin, cliConfigFile, pluginCacheDir } = run.settings
    const key = `${run.environmentId}:${initFingerprint(written, [terraformBin, cliConfigFile, pluginCacheDir, run.cloud.endpointUrl])}`
    const ownLockFile = path.join(root, LOCK_FILE)
    const hadLockFile = written.some((f) => f.path === LOCK_FILE)
    let initMs = 0
    // `terraform init` into the warm data directory, in this plan's tree; the lock file it wrote is kept with it.
    const init = async (warm: WarmDir) => {
      const tf = (args: string[]) =>
        terraform(run.settings, root, args, { ...terraformEnv(run.settings, dir, run.cloud), TF_DATA_DIR: warm.dataDir })
      const done = await tf(['init', '-input=false', '-no-color', '-lock=false', ...backend])
      initMs += done.ms
      if (done.code !== 0) throw failure(PLAN_CODES.initFailed, 'terraform init', done, run.cloud)
      await copyFile(ownLockFile, warm.lockFile).catch(() => {})
    }
    return await run.warm.use(key, init, async (warm, reinit) => {
      const tf = (args: string[]) =>
        terraform(run.settings, root, args, { ...terraformEnv(run.settings, dir, run.cloud), TF_DATA_DIR: warm.dataDir })
      if (!hadLockFile) await copyFile(warm.lockFile, ownLockFile).catch(() => {})
      const mode = run.kind === 'drift' ? ['-refresh-only'] : ['-refresh=true']
      const planArgs = ['plan', '-input=false', '-no-color', '-lock=false', ...mode, '-out=tfplan']
      let plan = await tf(planArgs)
      // The warm directory no longer fits the tree (Terraform says init is needed): initialise it again, once.
      if (plan.code !== 0 && NEEDS_INIT.test(plan.stderr)) {
        await reinit()
        plan = await tf(planArgs)
      }
      if (plan.code !== 0) throw failure(PLAN_CODES.failed, 'terraform plan', plan, run.cloud)
      const show = await tf(['show', '-json', '-no-color', 'tfplan'])
      if (show.code !== 0) throw failure(PLAN_CODES.failed, 'terraform show', show, run.cloud)
      const json = JSON.parse(show.stdout) as JsonPlan
      const read = resourcesOf((run.kind === 'drift' ? json.resource_drift : json.resource_changes) ?? [], run.holders)
      const resources = run.kind === 'drift' ? driftOf(read.resources, configuredAttributes(json)) : read.resources
      return {
        kind: run.kind,
        summary: summaryOf(resources, read.noOp),
        resources,
        dataAtRisk: dataAtRisk(resources),
        terraformVersion: json.terraform_version ?? 'unknown',
        seconds: Math.round((initMs + plan.ms + show.ms) / 100) / 10,
      }
    })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Writes the tree's terraform/ files (regular files only) under `root`; what it wrote (paths below terraform/). */
async function writeTerraformFiles(root: string, files: readonly TreeFile[]): Promise<FingerprintFile[]> {
  await mkdir(root, { recursive: true })
  const written: FingerprintFile[] = []
  for (const file of files) {
    if (!file.path.startsWith('terraform/')) continue
    const target = path.join(root, file.path.slice('terraform/'.length))
    if (!target.startsWith(root + path.sep)) continue
    await mkdir(path.dirname(target), { recursive: true })
    const content = await file.read()
    await writeFile(target, content, { mode: 0o600 })
    written.push({ path: path.relative(root, target), content })
  }
  return written
}

/** A failed command as the job's error: Terraform's message (its last error block), the secrets cut out. */
function failure(code: string, what: string, run: TerraformRun, cloud: CloudAccess): JobFailure {
  const text = redact(`${run.stderr}\n${run.stdout}`, cloudSecrets(cloud))
  const errors = [...text.matchAll(/Error: ([\s\S]*?)(?=\n\s*\n\S|\n*$)/g)].map((m) =>
    m[1]!.replace(/[│╷╵]/g, '').replace(/\s+/g, ' ').trim(),
  )
  const said = (errors.length > 0 ? errors.join('; ') : text.replace(/\s+/g, ' ').trim()).slice(0, 2000)
  if (REFUSED.test(text)) {
    return new JobFailure(PLAN_CODES.credentialRefused, `The cloud refused the environment's credential (${what}): ${said}`)
  }
  return new JobFailure(code, `${what} failed: ${said}`)
}
