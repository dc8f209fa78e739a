// A generated tree planned, applied and destroyed against moto (the local AWS stand-in), with the
// S3 state backend the generation writes pointed at moto's S3: what the apply test
// (test/templates/terraform-apply.test.ts) and the upgrade check (upgrade.ts) share.
//
// The apply leaves out what moto cannot create (moto-gaps.ts): it targets every planned resource
// except those and whatever depends on them (read from `terraform graph`), since a resource moto
// never finishes would hold the apply for its full create timeout.
import { join } from 'node:path'
import {
  DeleteBucketPolicyCommand,
  DeleteObjectsCommand,
  ListBucketsCommand,
  ListObjectVersionsCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import { processTree, writeTree } from '@ies/processor-lib'
import { backendFile, BACKEND_FILE } from '../../server/src/jobs/generation/backend-file.ts'
import type { ProcessorInput } from '../../server/src/jobs/generation/transform.ts'
import type { Config } from './configs.ts'
import { configAddress, gapsOf } from './moto-gaps.ts'
import { oneLine, terraform, tfEnv, type Diagnostic, type TerraformRun } from './terraform.ts'

/** Writes the tree a generation job writes (processed files + backend.tf) into `dir`; returns its terraform/ folder. */
export async function writeGenerated(templatesDir: string, config: Config, dir: string): Promise<string> {
  const result = await processTree({ templatesDir, config })
  if (!result.ok) throw new Error(`processing refused ${result.refused.join(', ')}`)
  await writeTree(dir, [...result.files, { path: BACKEND_FILE, content: backendFile(config as unknown as ProcessorInput), mode: 0o644 }])
  return join(dir, 'terraform')
}

/** Keys moto accepts while its request authentication is off (the default). */
const MOTO_KEYS = { accessKeyId: 'AKIAIESAPPLYTEST0001', secretAccessKey: 'fake-secret-for-moto' }

/** Terraform's environment against moto: fake keys, no shared AWS files, no instance metadata. */
export function motoEnv(endpoint: string): NodeJS.ProcessEnv {
  return tfEnv({
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: MOTO_KEYS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: MOTO_KEYS.secretAccessKey,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
  })
}

/**
 * The state bucket, as a customer makes it before the first `terraform init` (the generated README's "First apply"):
 * versioned, in the backend's region. Making it again is not an error.
 */
export async function createStateBucket(endpoint: string, backend: Config['terraformBackend']): Promise<void> {
  const url = `${endpoint}/${backend.bucket}`
  const made = await fetch(url, {
    method: 'PUT',
    body: `<CreateBucketConfiguration><LocationConstraint>${backend.region}</LocationConstraint></CreateBucketConfiguration>`,
  })
  const text = await made.text()
  if (!made.ok && !text.includes('BucketAlreadyOwnedByYou')) throw new Error(`state bucket ${backend.bucket}: HTTP ${made.status} ${text}`)
  const versioning = await fetch(`${url}?versioning`, {
    method: 'PUT',
    body: '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>',
  })
  if (!versioning.ok) throw new Error(`state bucket ${backend.bucket} versioning: HTTP ${versioning.status} ${await versioning.text()}`)
}

/**
 * Empties every bucket in moto but `keep` (every object version and delete marker), as an operator
 * does before destroying an environment: log buckets keep their logs (no force_destroy), and moto
 * delivers S3 access logs into them as AWS does. Each bucket's policy goes first: moto applies the
 * TLS-only statement to its plain-HTTP endpoint, so it refuses every request to the bucket.
 */
export async function emptyBuckets(endpoint: string, keep: string): Promise<void> {
  const s3 = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: MOTO_KEYS })
  try {
    for (const { Name: bucket } of (await s3.send(new ListBucketsCommand({}))).Buckets ?? []) {
      if (!bucket || bucket === keep) continue
      await s3.send(new DeleteBucketPolicyCommand({ Bucket: bucket }))
      const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }))
      const objects = [...(listed.Versions ?? []), ...(listed.DeleteMarkers ?? [])].map((v) => ({ Key: v.Key!, VersionId: v.VersionId }))
      if (objects.length === 0) continue
      const deleted = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects } }))
      const error = deleted.Errors?.[0]
      if (error) throw new Error(`emptying ${bucket}: ${error.Key}: ${error.Code} ${error.Message}`)
    }
  } finally {
    s3.destroy()
  }
}

/** `terraform init` with the generated S3 backend (path-style addressing: moto's endpoint is an IP address). */
export async function initBackend(dir: string, env: NodeJS.ProcessEnv): Promise<TerraformRun> {
  const run = await terraform(dir, ['init', '-input=false', '-reconfigure', '-no-color', '-backend-config=use_path_style=true'], env)
  if (run.code !== 0) throw new Error(`terraform init failed: ${oneLine(run.stderr || run.stdout)}`)
  return run
}

export interface ResourceChange {
  address: string
  /** The address before a `moved` block, when there is one. */
  previous_address?: string
  mode: 'managed' | 'data'
  type: string
  change: {
    actions: string[]
    before: Record<string, unknown> | null
    after: Record<string, unknown> | null
    /** The attribute paths that force a replacement. */
    replace_paths?: (string | number)[][]
  }
  action_reason?: string
}

export interface Plan {
  run: TerraformRun
  diagnostics: Diagnostic[]
  /** Managed resources only. */
  changes: ResourceChange[]
  summary: { add: number; change: number; remove: number } | null
}

/** `terraform plan -out=tfplan` (with `args`, e.g. the pipeline's), then `terraform show -json` of that plan. */
export async function plan(dir: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<Plan> {
  const run = await terraform(
    dir,
    ['plan', '-json', '-input=false', '-no-color', ...args.filter((a) => !/^-(out=|no-color$|input=)/.test(a)), '-out=tfplan'],
    env,
  )
  const messages = jsonLines(run.stdout)
  const diagnostics = messages.filter((m) => m.type === 'diagnostic').map((m) => m.diagnostic as Diagnostic)
  const summary = (messages.find((m) => m.type === 'change_summary')?.changes as Plan['summary']) ?? null
  if (run.code !== 0) return { run, diagnostics, changes: [], summary }
  const shown = await terraform(dir, ['show', '-json', '-no-color', 'tfplan'], env)
  if (shown.code !== 0) throw new Error(`terraform show failed: ${oneLine(shown.stderr)}`)
  const changes = ((JSON.parse(shown.stdout) as { resource_changes?: ResourceChange[] }).resource_changes ?? []).filter(
    (c) => c.mode === 'managed',
  )
  run.ms += shown.ms
  return { run, diagnostics, changes, summary }
}

/** A resource the apply did not create, and why. */
export interface Missing {
  address: string
  why: string
  /** A documented moto gap (or a resource that depends on one, listed too). */
  gap: boolean
}

export interface Apply {
  run: TerraformRun
  /** Errors of the apply, each naming its resource when Terraform does. */
  failures: string[]
  /** Planned resource instances not in the state afterwards. */
  missing: Missing[]
  created: number
}

/**
 * Applies everything the plan creates except the moto gaps and what depends on them; then compares
 * the state with the plan: every planned resource is created, or documented as a gap.
 */
export async function applyWithoutGaps(dir: string, env: NodeJS.ProcessEnv, planned: Plan): Promise<Apply> {
  const blockedBy = await gapDependents(dir, env)
  const targets = [...new Set(planned.changes.map((c) => configAddress(c.address)))].filter((a) => !blockedBy.has(a))
  const run = await terraform(
    dir,
    ['apply', '-json', '-auto-approve', '-input=false', '-no-color', ...targets.map((a) => `-target=${a}`)],
    env,
  )
  const failures = jsonLines(run.stdout)
    .filter((m) => m.type === 'diagnostic' && m.diagnostic.severity === 'error')
    .map((m) => describe(m.diagnostic as Diagnostic & { address?: string }))
  if (run.code !== 0 && failures.length === 0) failures.push(`terraform apply failed: ${oneLine(run.stderr)}`)
  const state = new Set(await stateList(dir, env))
  const missing: Missing[] = []
  for (const c of planned.changes) {
    if (state.has(c.address)) continue
    const config = configAddress(c.address)
    const gap = gapsOf('create').find((g) => g.address === config)
    const blocker = blockedBy.get(config)
    if (gap) missing.push({ address: c.address, why: gap.why, gap: true })
    else if (blocker)
      missing.push({ address: c.address, why: `depends on ${blocker}, a moto gap: list it in moto-gaps.ts if so`, gap: false })
    else missing.push({ address: c.address, why: 'not created (see the apply errors)', gap: false })
  }
  return { run, failures, missing, created: state.size }
}

/**
 * Each resource (config address) that is a moto gap or depends on one, directly or not, with the
 * gap it waits for; from `terraform graph` (resources and data sources, edges to what each needs).
 */
async function gapDependents(dir: string, env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  const graph = await terraform(dir, ['graph'], env)
  if (graph.code !== 0) throw new Error(`terraform graph failed: ${oneLine(graph.stderr)}`)
  const needs = new Map<string, string[]>()
  for (const m of graph.stdout.matchAll(/^\s*"([^"]+)" -> "([^"]+)";$/gm)) {
    const list = needs.get(m[1]!) ?? []
    list.push(m[2]!)
    needs.set(m[1]!, list)
  }
  const gaps = new Set(gapsOf('create').map((g) => g.address))
  const memo = new Map<string, string | null>()
  const blocker = (node: string, seen: Set<string>): string | null => {
    if (gaps.has(node)) return node
    if (memo.has(node)) return memo.get(node)!
    if (seen.has(node)) return null
    seen.add(node)
    let found: string | null = null
    for (const next of needs.get(node) ?? []) if ((found = blocker(next, seen))) break
    memo.set(node, found)
    return found
  }
  const out = new Map<string, string>()
  for (const node of new Set([...needs.keys(), ...gaps])) {
    const b = blocker(node, new Set())
    if (b) out.set(node, b)
  }
  return out
}

export async function stateList(dir: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const run = await terraform(dir, ['state', 'list', '-no-color'], env)
  if (run.code !== 0) throw new Error(`terraform state list failed: ${oneLine(run.stderr)}`)
  return run.stdout.split('\n').filter((l) => l && !l.startsWith('data.') && !/\.data\./.test(l))
}

/**
 * `terraform destroy` as an operator runs it: what moto cannot delete (the `destroy` gaps) taken
 * out of the state, S3 access logging stopped first (a targeted destroy; it writes a log object for
 * every request to the logged bucket, the destroy's own included), then `beforeDestroy` (emptying
 * the log buckets, which are not force-destroyed), then the rest. The errors (naming their
 * resources) and what is left in the state.
 */
export async function destroy(
  dir: string,
  env: NodeJS.ProcessEnv,
  beforeDestroy: () => Promise<void> = async () => {},
): Promise<{ run: TerraformRun; failures: string[]; left: string[] }> {
  const state = await stateList(dir, env)
  const undeletable = state.filter((a) => gapsOf('destroy').some((g) => g.address === configAddress(a)))
  if (undeletable.length > 0) {
    const rm = await terraform(dir, ['state', 'rm', '-no-color', ...undeletable], env)
    if (rm.code !== 0) throw new Error(`terraform state rm failed: ${oneLine(rm.stderr)}`)
  }
  const args = ['destroy', '-json', '-auto-approve', '-input=false', '-no-color']
  const logging = state.filter((a) => /(^|\.)aws_s3_bucket_logging\./.test(a)).map((a) => `-target=${a}`)
  const runs: TerraformRun[] = []
  if (logging.length > 0) runs.push(await terraform(dir, [...args, ...logging], env))
  await beforeDestroy()
  runs.push(await terraform(dir, args, env))
  const run = { ...runs[runs.length - 1]!, ms: runs.reduce((sum, r) => sum + r.ms, 0) }
  const failures = runs.flatMap((r) =>
    jsonLines(r.stdout)
      .filter((m) => m.type === 'diagnostic' && m.diagnostic.severity === 'error')
      .map((m) => describe(m.diagnostic as Diagnostic & { address?: string })),
  )
  for (const r of runs) if (r.code !== 0 && failures.length === 0) failures.push(`terraform destroy failed: ${oneLine(r.stderr)}`)
  return { run, failures, left: await stateList(dir, env) }
}

/** One line for a diagnostic: the resource address (when Terraform names one), the summary and the detail. */
export function describe(d: Diagnostic & { address?: string }): string {
  const where = d.address ?? (d.range ? `${d.range.filename}:${d.range.start.line}` : '')
  return `${where ? `${where}: ` : ''}${d.severity} ${d.summary}${d.detail ? `: ${oneLine(d.detail)}` : ''}`
}

function jsonLines(stdout: string): Record<string, any>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}
