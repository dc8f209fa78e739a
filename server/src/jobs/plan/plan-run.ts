// One plan: the tree's terraform/ folder written into a directory of its own (removed afterwards),
// `terraform init` with the tree's S3 state backend, `terraform plan -lock=false -refresh=true -out`
// (drift: `-refresh-only`), `terraform show -json`, read into the API's result. A plan never takes
// the state lock and never writes state. A failure is a JobFailure with Terraform's own words, the
// credential cut out of them.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { PLAN_CODES, type PlanResult } from '@ies/api/schemas/plans'
import { JobFailure } from '../../core/job-failure.ts'
import { redact } from '../../core/redaction.ts'
import type { DataHolders } from './data-holders.ts'
import { configuredAttributes, dataAtRisk, driftOf, resourcesOf, summaryOf, type JsonPlan } from './plan-reading.ts'
import { terraform, terraformEnv, type CloudAccess, type PlanSettings, type TerraformRun } from './terraform.ts'

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
  /** The repository's files (only terraform/ is written). */
  files: readonly TreeFile[]
  /** Called with the plan's directory once it exists (tests look into it while Terraform runs). */
  onDirectory?: (dir: string) => void
}

export type PlanOutcome = Omit<PlanResult, 'branch' | 'templatesCommit'>

/** What AWS answers when it refuses a credential (in Terraform's error text). */
const REFUSED =
  /validating provider credentials|InvalidClientTokenId|SignatureDoesNotMatch|InvalidAccessKeyId|ExpiredToken|UnrecognizedClientException|AuthFailure|security token included in the request is invalid|No valid credential sources found/i

/** The secrets that may show in Terraform's output: the credential's secret parts. */
export const cloudSecrets = (cloud: CloudAccess): string[] => [cloud.secretAccessKey, ...(cloud.sessionToken ? [cloud.sessionToken] : [])]

export async function runPlan(run: PlanRun): Promise<PlanOutcome> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-plan-'))
  try {
    run.onDirectory?.(dir)
    const root = path.join(dir, 'terraform')
    await writeTerraformFiles(root, run.files)
    const env = terraformEnv(run.settings, dir, run.cloud)
    const tf = (args: string[]) => terraform(run.settings, root, args, env)
    const backend = run.cloud.endpointUrl ? ['-backend-config=use_path_style=true'] : []
    const init = await tf(['init', '-input=false', '-no-color', '-lock=false', ...backend])
    if (init.code !== 0) throw failure(PLAN_CODES.initFailed, 'terraform init', init, run.cloud)
    const mode = run.kind === 'drift' ? ['-refresh-only'] : ['-refresh=true']
    const plan = await tf(['plan', '-input=false', '-no-color', '-lock=false', ...mode, '-out=tfplan'])
    if (plan.code !== 0) throw failure(PLAN_CODES.failed, 'terraform plan', plan, run.cloud)
    const show = await tf(['show', '-json', '-no-color', 'tfplan'])
    if (show.code !== 0) throw failure(PLAN_CODES.failed, 'terraform show', show, run.cloud)
    const json = JSON.parse(show.stdout) as JsonPlan
    const read = resourcesOf((run.kind === 'drift' ? json.resource_drift : json.resource_changes) ?? [], run.holders)
    const resources = run.kind === 'drift' ? driftOf(read.resources, configuredAttributes(json)) : read.resources
    const noOp = read.noOp
    return {
      kind: run.kind,
      summary: summaryOf(resources, noOp),
      resources,
      dataAtRisk: dataAtRisk(resources),
      terraformVersion: json.terraform_version ?? 'unknown',
      seconds: Math.round((init.ms + plan.ms + show.ms) / 100) / 10,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Writes the tree's terraform/ files (regular files only) under `root`. */
async function writeTerraformFiles(root: string, files: readonly TreeFile[]): Promise<void> {
  await mkdir(root, { recursive: true })
  for (const file of files) {
    if (!file.path.startsWith('terraform/')) continue
    const target = path.join(root, file.path.slice('terraform/'.length))
    if (!target.startsWith(root + path.sep)) continue
    await mkdir(path.dirname(target), { recursive: true })
    await writeFile(target, await file.read(), { mode: 0o600 })
  }
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
