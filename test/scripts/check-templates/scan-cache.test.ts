// The scanners' result store (scripts/check-templates/scan-cache.ts): a folder's digest follows its
// content and nothing else; a stored result is returned for the same content, also in another
// folder, without starting the tool; a changed file or skip comment is scanned anew; the store is
// bounded and can be turned off. Then the real checkov, tflint and Terraform: the same findings
// with and without the store (as JSON, byte for byte), and from the store with the scanner gone.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { repoRoot } from '../../templates/helpers.ts'
import { cachedRun, folderDigest, prune, scanCacheDir } from '../../../scripts/check-templates/scan-cache.ts'
import { checkov, missingScanner, SCANNERS, tflint } from '../../../scripts/check-templates/scanners.ts'
import { checkTerraform, terraformMissing } from '../../../scripts/check-templates/terraform.ts'

const work = mkdtempSync(join(tmpdir(), 'ies-scan-cache-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const inCi = !!process.env.CI && process.env.CI !== 'false'
const before = process.env.IES_SCAN_CACHE
t.teardown(() => {
  if (before === undefined) delete process.env.IES_SCAN_CACHE
  else process.env.IES_SCAN_CACHE = before
})
let stores = 0
/** A new, empty store for the test that calls it. */
function freshStore(): string {
  const store = join(work, `store-${stores++}`)
  process.env.IES_SCAN_CACHE = store
  return store
}
const entries = (store: string) => readdirSync(store).filter((n) => n.endsWith('.json.gz')).length

function folder(name: string, files: Record<string, string>): string {
  const dir = join(work, name)
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true })
    writeFileSync(join(dir, rel), content)
  }
  return dir
}

t.test('the digest of a folder: its files, paths and links, not where it is', async (t) => {
  const a = folder('digest-a', { 'main.tf': 'locals {}\n', 'modules/x/main.tf': 'variable "y" {}\n' })
  const b = folder('digest-b', { 'main.tf': 'locals {}\n', 'modules/x/main.tf': 'variable "y" {}\n' })
  const same = await folderDigest(a)
  t.match(same, /^[0-9a-f]{64}$/)
  t.equal(await folderDigest(b), same, 'the same content elsewhere')
  writeFileSync(join(b, 'modules/x/main.tf'), 'variable "z" {}\n')
  t.not(await folderDigest(b), same, 'a changed file')
  const c = folder('digest-c', { 'main.tf': 'locals {}\n', 'modules/y/main.tf': 'variable "y" {}\n' })
  t.not(await folderDigest(c), same, 'the same bytes at another path')
  symlinkSync('modules', join(a, 'linked'))
  t.not(await folderDigest(a), same, 'a link inside the folder is part of it')
  symlinkSync(b, join(c, 'outside'))
  t.equal(await folderDigest(c), null, 'a link out of the folder: no digest, nothing cached')
})

t.test('a stored result is reused for the same content and key, and only then', async (t) => {
  const store = freshStore()
  const dir = folder('run', { 'main.tf': 'locals {}\n' })
  let runs = 0
  const run =
    (keep = true) =>
    async () => ({ value: { runs: ++runs }, keep })
  t.same(await cachedRun(['tool', '1.0'], [dir], run()), { runs: 1 })
  t.same(await cachedRun(['tool', '1.0'], [dir], run()), { runs: 1 }, 'stored')
  t.same(await cachedRun(['tool', '1.0'], [folder('run-copy', { 'main.tf': 'locals {}\n' })], run()), { runs: 1 }, 'a copy elsewhere')
  t.same(await cachedRun(['tool', '1.1'], [dir], run()), { runs: 2 }, 'another tool version')
  writeFileSync(join(dir, 'main.tf'), 'locals { a = 1 }\n')
  t.same(await cachedRun(['tool', '1.0'], [dir], run()), { runs: 3 }, 'a changed file')
  t.same(await cachedRun(['tool', '1.0'], [dir], run()), { runs: 3 })
  writeFileSync(join(dir, 'main.tf'), 'locals { b = 1 }\n')
  t.same(await cachedRun(['tool', '1.0'], [dir], run(false)), { runs: 4 }, 'a failure')
  t.same(await cachedRun(['tool', '1.0'], [dir], run(false)), { runs: 5 }, 'is not stored')
  t.equal(entries(store), 3)
  t.same(
    readdirSync(store).filter((n) => !n.endsWith('.json.gz')),
    [],
    'no temporary file left',
  )

  for (const name of readdirSync(store)) writeFileSync(join(store, name), 'not gzip')
  t.same(await cachedRun(['tool', '1.0'], [dir], run()), { runs: 6 }, 'an unreadable entry: run again')
  t.same(await cachedRun(['tool', '1.0'], [dir], run()), { runs: 6 }, 'and stored anew')

  t.equal(scanCacheDir({ HOME: '/home/a' }), join(homedir(), '.cache', 'ies', 'scans'), "the user's cache folder")
  t.equal(scanCacheDir({ XDG_CACHE_HOME: '/var/cache/a' }), '/var/cache/a/ies/scans')
  t.equal(scanCacheDir({ IES_SCAN_CACHE: '/var/scans' }), '/var/scans')
  process.env.IES_SCAN_CACHE = 'off'
  t.equal(scanCacheDir(), null)
  t.same(await cachedRun(['tool', '1.0'], [dir], run()), { runs: 7 }, 'IES_SCAN_CACHE=off: the tool runs')
  t.same(await cachedRun(['tool', '1.0'], [dir], run()), { runs: 8 })
})

t.test('runs side by side, in one process and in several: every one gets the result, one file is stored', async (t) => {
  const store = freshStore()
  const dir = folder('side-by-side', { 'main.tf': 'locals {}\n' })
  const results = await Promise.all(
    Array.from({ length: 8 }, () => cachedRun(['tool'], [dir], async () => ({ value: { ok: true }, keep: true }))),
  )
  t.same(results, Array(8).fill({ ok: true }))
  t.same(readdirSync(store).length, 1, 'one entry, no temporary file')

  // Three processes storing a large result under one key at once, as test files running side by side do.
  const script = join(work, 'store-once.mts')
  const big = 'x'.repeat(200_000)
  writeFileSync(
    script,
    `import { cachedRun } from ${JSON.stringify(join(repoRoot, 'scripts/check-templates/scan-cache.ts'))}\n` +
      `const r = await cachedRun(['big'], [${JSON.stringify(dir)}], async () => ({ value: { big: '${big}', pid: process.pid }, keep: true }))\n` +
      'console.log(r.big.length)\n',
  )
  const runs = await Promise.all(
    [1, 2, 3].map(
      () =>
        new Promise<string>((resolve) =>
          execFile(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot }, (error, stdout, stderr) =>
            resolve(error ? `failed: ${stderr}` : stdout.trim()),
          ),
        ),
    ),
  )
  t.same(runs, ['200000', '200000', '200000'])
  const stored = await cachedRun<{ big: string }>(['big'], [dir], async () => ({ value: { big: '' }, keep: true }))
  t.equal(stored.big, big, 'the stored result is whole')
  t.equal(readdirSync(store).length, 2, 'one entry for the key, no temporary file')
})

t.test('the store is bounded: the least recently used entries go first', async (t) => {
  const store = freshStore()
  mkdirSync(store, { recursive: true })
  for (let i = 0; i < 6; i++) {
    writeFileSync(join(store, `${i}.json.gz`), '')
    utimesSync(join(store, `${i}.json.gz`), 1000 + i, 1000 + i)
  }
  writeFileSync(join(store, 'x.json.gz.1.ab.tmp'), '')
  utimesSync(join(store, 'x.json.gz.1.ab.tmp'), 1, 1)
  await prune(store, 4)
  t.same(readdirSync(store).sort(), ['2.json.gz', '3.json.gz', '4.json.gz', '5.json.gz'], 'the newest four; an old temporary file removed')
})

// A small tree for the real tools: a module called from the root, one check skipped with a reason,
// a variable nothing reads.
const tree = {
  'main.tf': 'module "bucket" {\n  source = "./modules/bucket"\n  name   = "b"\n}\n',
  'variables.tf': 'variable "unused" {\n  description = "Nothing reads it."\n  type        = string\n  default     = ""\n}\n',
  'modules/bucket/main.tf': [
    'variable "name" {',
    '  description = "The bucket name."',
    '  type        = string',
    '}',
    '',
    'resource "aws_s3_bucket" "this" {',
    '  #checkov:skip=CKV_AWS_144:cross-region replication is the caller decision here',
    '  bucket = var.name',
    '}',
    '',
  ].join('\n'),
  'versions.tf': 'terraform {\n  required_version = ">= 1.6"\n}\n',
}
const scannersMissing = missingScanner()

/**
 * Stand-ins for checkov and tflint that say the installed versions (checkov's: its environment's
 * package metadata) and scan nothing (exit 3): a result that comes back with them came from the
 * store.
 */
function brokenScanners(): { checkov: string; tflint: string } {
  const venv = join(work, 'broken-venv')
  const installed = join(SCANNERS.checkov, '..', '..', 'lib')
  for (const python of readdirSync(installed)) {
    const site = join(installed, python, 'site-packages')
    for (const info of readdirSync(site).filter((n) => n.endsWith('.dist-info')))
      mkdirSync(join(venv, 'lib', python, 'site-packages', info), { recursive: true })
  }
  mkdirSync(join(venv, 'bin'), { recursive: true })
  const checkovBin = join(venv, 'bin', 'checkov')
  writeFileSync(checkovBin, '#!/bin/sh\nexit 3\n', { mode: 0o755 })
  const tflintBin = join(venv, 'bin', 'tflint')
  writeFileSync(tflintBin, `#!/bin/sh\n[ "$1" = --version ] && exec ${JSON.stringify(SCANNERS.tflint)} --version\nexit 3\n`, {
    mode: 0o755,
  })
  return { checkov: checkovBin, tflint: tflintBin }
}

t.test(
  'checkov and tflint: the same findings with and without the store',
  { skip: scannersMissing && !inCi ? scannersMissing : false },
  async (t) => {
    const config = join(work, 'tflint.hcl')
    writeFileSync(config, 'plugin "terraform" {\n  enabled = true\n  preset  = "recommended"\n}\n')
    const dir = folder('scan', tree)
    process.env.IES_SCAN_CACHE = 'off'
    const fresh = { checkov: await checkov(dir), tflint: await tflint(dir, config) }
    t.ok(fresh.checkov.failed.length > 0 && fresh.checkov.skipped.length === 1, 'checkov failed and skipped checks')
    t.ok(
      fresh.tflint.some((i) => `${i.file}:${i.line} ${i.rule}` === 'variables.tf:1 terraform_unused_declarations'),
      'tflint: the unused variable',
    )
    // A second run of each tool, through an empty store: two runs give the same JSON, stored or not.
    const store = freshStore()
    const cold = { checkov: await checkov(dir), tflint: await tflint(dir, config) }
    t.equal(JSON.stringify(cold), JSON.stringify(fresh), 'the first run through the store: the same JSON as the run without it')
    t.equal(entries(store), 2)
    // From the store, in another folder with the same content, with the scanners gone.
    const copy = join(work, 'scan-copy')
    cpSync(dir, copy, { recursive: true })
    const tools = { ...SCANNERS }
    Object.assign(SCANNERS, brokenScanners())
    try {
      const warm = { checkov: await checkov(copy), tflint: await tflint(copy, config) }
      t.equal(JSON.stringify(warm), JSON.stringify(fresh), 'from the store: the same JSON, no scanner started')
    } finally {
      Object.assign(SCANNERS, tools)
    }

    // A changed skip reason and a changed file are scanned anew.
    const bucket = join(copy, 'modules/bucket/main.tf')
    writeFileSync(bucket, readFileSync(bucket, 'utf8').replace('the caller decision here', 'left to the caller of the module'))
    const reasons = (await checkov(copy)).skipped.map((c) => c.reason)
    t.same(reasons, ['cross-region replication is left to the caller of the module'], 'the new skip reason')
    writeFileSync(join(copy, 'variables.tf'), '')
    t.notOk(
      (await tflint(copy, config)).some((i) => i.rule === 'terraform_unused_declarations'),
      'the unused variable removed: no such issue',
    )
    t.equal(entries(store), 4)
  },
)

const noTerraform = terraformMissing()
t.test(
  'terraform fmt and validate: the same findings with and without the store',
  { skip: noTerraform && !inCi ? noTerraform : false },
  async (t) => {
    const broken = {
      names: ['broken'],
      files: [
        { path: 'terraform/main.tf', content: Buffer.from('output "x" {\n  value = local.missing\n}\n'), mode: 0o644 },
        { path: 'terraform/extra.tf', content: Buffer.from('locals {\n    a = 1\n}\n'), mode: 0o644 },
      ],
    }
    process.env.IES_SCAN_CACHE = 'off'
    const fresh = await checkTerraform([broken], join(work, 'tf-fresh'))
    t.same(
      fresh.findings.map((f) => `${f.code} ${f.file}:${f.line}`),
      ['FORMAT terraform/extra.tf:0', 'TERRAFORM_VALIDATE terraform/main.tf:2'],
    )
    const store = freshStore()
    t.equal(JSON.stringify(await checkTerraform([broken], join(work, 'tf-cold'))), JSON.stringify(fresh), 'through the store')
    const stored = entries(store)
    t.ok(stored >= 2, `fmt and validate stored (${stored})`)
    t.equal(JSON.stringify(await checkTerraform([broken], join(work, 'tf-warm'))), JSON.stringify(fresh), 'from the store')
    t.equal(entries(store), stored, 'nothing run anew')
    const fixed = { names: ['fixed'], files: [broken.files[0]!, { ...broken.files[1]!, content: Buffer.from('locals {\n  a = 1\n}\n') }] }
    t.same(
      (await checkTerraform([fixed], join(work, 'tf-fixed'))).findings.map((f) => f.code),
      ['TERRAFORM_VALIDATE'],
      'a changed file: checked anew',
    )
  },
)
