/**
 * A plugin author adds a service with templates alone. A realistic one (a DynamoDB table, kept in
 * test/fixtures/services/dynamodb/) added to a temporary copy of the tree passes `npm run
 * check:templates -- --service dynamodb` on the copy as it is (strict extraction, the gate
 * configurations that turn the service on and the one with every service off, terraform fmt and
 * validate, checkov and tflint, every module folder scanned): nothing outside the copy needs
 * regenerating. The other configurations differ from those of templates/ itself, which
 * check-templates.test.ts checks, only in other services. The catalog, the
 * desktop's built-in catalog made from the copy and the wizard's prepared catalog list it,
 * generation includes it, and the template tests pass on the copy unchanged (their service lists
 * come from the catalog). `npm run new-service` scaffolds one that passes too. Then a broken copy:
 * each mistake is reported once at the template's file:line, whatever number of configurations
 * (trees) shows it, scanner findings with their fix.
 */
import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { extractCatalog, processTree, type TreeFile } from '@ies/processor-lib'
import { staticCatalog } from '../../desktop/scripts/static-catalog.ts'
import { prepareCatalog } from '../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'
import { addService } from '../fixtures/services/add-service.ts'
import { configFrom, repoRoot, templatesDir } from '../templates/helpers.ts'
import { missingTools } from '../templates/security-scan.ts'

// Two check:templates runs with Terraform and the scanners, one without: minutes on a shared machine.
t.setTimeout(1_200_000)
const work = mkdtempSync(join(tmpdir(), 'ies-new-service-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const inCi = !!process.env.CI && process.env.CI !== 'false'
const scanners = missingTools()

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({
        code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0,
        stdout,
        stderr,
      })
    })
  })
}
const tsx = (script: string, args: string[], env?: NodeJS.ProcessEnv) => run(process.execPath, ['--import', 'tsx', script, ...args], env)
/** The findings of a check:templates report: its `file:line: CODE` lines. */
const reported = (out: string) => [...out.matchAll(/^(\S+:\d+): ([A-Z_]+) /gm)].map((m) => `${m[1]} ${m[2]}`)
/** check:templates of the added service on a tree; the scanners only where they are installed (provision.sh), always under CI. */
const checkService = (tree: string) =>
  tsx('scripts/check-templates.ts', [tree, '--service', 'dynamodb', ...(scanners && !inCi ? ['--no-scan'] : [])])

function copyTree(name: string): string {
  const tree = join(work, name, 'templates')
  cpSync(templatesDir, tree, { recursive: true })
  return tree
}

const text = (files: readonly TreeFile[], p: string) => {
  const f = files.find((x) => x.path === p)
  if (!f) throw new Error(`${p} missing`)
  return typeof f.content === 'string' ? f.content : f.content.toString('utf8')
}
const lineIn = (file: string, needle: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle)) + 1

t.test('a DynamoDB table service added to a copy of templates/ passes check:templates, scanners included', async (t) => {
  if (scanners) t.comment(`${scanners}: the check runs without the scanners outside CI`)
  const tree = copyTree('good')
  const touched = addService('dynamodb', tree)
  t.ok(
    touched.every((p) => p.startsWith('terraform/')),
    `the service is files of the templates tree only: ${touched.join(', ')}`,
  )

  const r = await checkService(tree)
  t.equal(r.code, 0, `check:templates passes on the copy:\n${r.stdout}${r.stderr}`)
  t.match(r.stdout, /check:templates: ok; \d+ configurations, \d+ Terraform trees validated, \d+ scanned by checkov and tflint; [\d.]+ s/)
  t.match(
    r.stdout,
    /check:templates: ok; 5 configurations/,
    'every service with and without a domain, half, dynamodb alone, every service off',
  )
  if (!scanners) t.notMatch(r.stdout, / 0 scanned by checkov/, 'checkov and tflint scanned the trees')
  if (inCi) t.notMatch(r.stdout, /terraform skipped/, 'terraform ran')

  // The catalog lists it; the desktop's built-in catalog, made from the same tree by its build, and the wizard show it.
  const catalog = await extractCatalog({ templatesDir: tree, provider: 'aws', commit: 'new-service' })
  t.same(catalog.errors, [])
  t.match(catalog.services.dynamodb, { displayName: 'DynamoDB', category: 'Databases' })
  t.same(Object.keys(catalog.services.dynamodb?.fields ?? {}).sort(), [
    'deletionProtection',
    'enabled',
    'partitionKey',
    'sortKey',
    'tableName',
    'ttlAttribute',
  ])
  const builtIn = await staticCatalog(tree)
  t.same(builtIn.services.dynamodb, catalog.services.dynamodb, 'the built-in catalog the desktop build makes from the tree has it')
  const wizard = prepareCatalog(builtIn).services.find((s) => s.key === 'dynamodb')
  t.match(wizard, { label: 'DynamoDB', category: 'Databases' }, "the wizard's catalog shows it")
  t.match(
    wizard?.fields.map((f) => f.key),
    ['tableName', 'partitionKey', 'sortKey', 'ttlAttribute', 'deletionProtection'],
  )

  // Generation includes it when enabled, with the answers, and comments it out when not.
  const on = configFrom(catalog, { enabled: (k) => k === 'dynamodb', domain: '' })
  on.services.dynamodb!.tableName = 'orders'
  on.services.dynamodb!.sortKey = 'createdAt'
  const generated = await processTree({ templatesDir: tree, config: on })
  t.ok(generated.ok)
  const tfvars = text(generated.files, 'terraform/terraform.tfvars')
  t.match(tfvars, /^dynamodb_table_name = "orders"$/m)
  t.match(tfvars, /^dynamodb_sort_key = "createdAt"$/m)
  t.match(tfvars, /^dynamodb_deletion_protection = true$/m)
  t.match(text(generated.files, 'terraform/main.tf'), /^module "dynamodb" \{$/m)
  t.match(text(generated.files, 'terraform/modules/dynamodb/main.tf'), /point_in_time_recovery \{\n\s+enabled = true/)
  const off = await processTree({ templatesDir: tree, config: configFrom(catalog, { enabled: false, domain: '' }) })
  t.match(text(off.files, 'terraform/main.tf'), /^# module "dynamodb" \{$/m)

  // The template tests, run on the copy as they are: they take the services from its catalog.
  for (const test of ['test/templates/structure.test.ts', 'test/templates/module-wiring.test.ts']) {
    const r = await tsx(test, [], { IES_TEMPLATES_DIR: tree })
    t.equal(
      r.code,
      0,
      `${test} passes on the copy${
        r.code
          ? `:\n${r.stdout
              .split('\n')
              .filter((l) => /not ok/.test(l))
              .join('\n')}`
          : ''
      }`,
    )
  }
})

t.test('a scaffolded service (npm run new-service) passes check:templates', async (t) => {
  const tree = copyTree('scaffold')
  const scaffold = await tsx('scripts/new-service.ts', [
    'queue2',
    '--templates',
    tree,
    '--display-name',
    'Queue 2',
    '--category',
    'Messaging',
  ])
  t.equal(scaffold.code, 0, scaffold.stderr)
  t.match(scaffold.stdout, /wrote terraform\/modules\/queue2\/main\.tf/)
  t.equal((await tsx('scripts/new-service.ts', ['queue2', '--templates', tree])).code, 2, 'a second scaffold of the same key is refused')
  // Terraform and the scanners ran over the same module shapes in the test above.
  const r = await tsx('scripts/check-templates.ts', [tree, '--no-terraform', '--no-scan'])
  t.equal(r.code, 0, r.stdout)
  t.ok((await extractCatalog({ templatesDir: tree, provider: 'aws' })).services.queue2, 'the catalog lists it')
})

t.test('check:templates on a broken copy: each mistake once, at the template line, grouped by file, with its fix', async (t) => {
  const tree = copyTree('broken')
  addService('dynamodb', tree)
  const tfvars = join(tree, 'terraform/terraform.tfvars')
  const main = join(tree, 'terraform/main.tf')
  const table = join(tree, 'terraform/modules/dynamodb/main.tf')
  const variables = join(tree, 'terraform/modules/dynamodb/variables.tf')
  let params = readFileSync(tfvars, 'utf8')
  // 1. a blank line under a knob's @param (an author check: no configuration needed)
  params = params.replace('dynamodb_ttl_attribute = ""\n', '\ndynamodb_ttl_attribute = ""\n')
  // 2. a "|" inside pattern= on another service's knob
  params = params.replace(/^(# @param services\.sqs\.queueName .*)pattern=[^|]*\|/m, '$1pattern=^(jobs|tasks)$ |')
  writeFileSync(tfvars, params)
  // 3. the module call passes an argument the module does not declare (terraform validate)
  const protection = '  deletion_protection = var.dynamodb_deletion_protection\n'
  writeFileSync(main, readFileSync(main, 'utf8').replace(protection, `${protection}  billing_mode        = "PROVISIONED"\n`))
  // 4. no point-in-time recovery, the AWS-owned key instead of the table's own (checkov, two checks at one resource)
  writeFileSync(
    table,
    readFileSync(table, 'utf8')
      .replace(/point_in_time_recovery \{\n(\s+)enabled = true/, 'point_in_time_recovery {\n$1enabled = false')
      .replace(/enabled {5}= true\n(\s+)kms_key_arn = aws_kms_key\.this\.arn\n/, 'enabled = true\n'),
  )
  // 5. a variable nothing reads (tflint)
  writeFileSync(
    variables,
    `${readFileSync(variables, 'utf8')}\nvariable "read_capacity" {\n  description = "Unused."\n  type        = number\n  default     = 5\n}\n`,
  )
  const inertLine = lineIn(tfvars, '# @param services.dynamodb.ttlAttribute')
  const patternLine = lineIn(tfvars, '# @param services.sqs.queueName')
  const argumentLine = lineIn(main, 'billing_mode        = "PROVISIONED"')
  const tableLine = lineIn(table, 'resource "aws_dynamodb_table" "this"')
  const unusedLine = lineIn(variables, 'variable "read_capacity"')

  const r = await checkService(tree)
  t.equal(r.code, 1)
  const terraformRan = !/terraform skipped/.test(r.stdout)
  const scanned = !/ 0 scanned by checkov/.test(r.stdout)
  if (!terraformRan || !scanned) t.notOk(inCi, 'terraform and the scanners run under CI')
  const want = [
    ...(terraformRan ? [`terraform/main.tf:${argumentLine} TERRAFORM_VALIDATE`] : []),
    ...(scanned
      ? [`terraform/modules/dynamodb/main.tf:${tableLine} CHECKOV`, `terraform/modules/dynamodb/main.tf:${tableLine} CHECKOV`]
      : []),
    ...(scanned ? [`terraform/modules/dynamodb/variables.tf:${unusedLine} TFLINT`] : []),
    `terraform/terraform.tfvars:${patternLine} BAD_ATTRIBUTE`,
    `terraform/terraform.tfvars:${inertLine} INERT_PARAM`,
  ]
  t.same(reported(r.stdout), want, `each once:\n${r.stdout}`)
  t.match(r.stdout, /BAD_ATTRIBUTE .*"\|" before it splits the decorator \(rule 9\)/)
  t.match(r.stdout, /\n {4}fix: put the @param directly above its `key = value` line/)
  if (terraformRan) t.match(r.stdout, /TERRAFORM_VALIDATE error: Unsupported argument/)
  if (scanned) {
    // the fix is checkov's own title of the check, and tflint's message
    t.match(
      r.stdout,
      /CHECKOV CKV_AWS_28 failed on module\.dynamodb\.aws_dynamodb_table\.this: [^\n]*\n {4}fix: Ensure [^\n]*point in time recovery/i,
    )
    t.match(r.stdout, /CHECKOV CKV_AWS_119 failed on module\.dynamodb\.aws_dynamodb_table\.this: [^\n]*\n {4}fix: Ensure [^\n]*KMS/i)
    // found in the module folder every tree shares: no configuration named
    t.match(
      r.stdout,
      /TFLINT terraform_unused_declarations: variable "read_capacity" is declared but not used\n {4}fix: variable "read_capacity" is declared but not used \(https:/,
    )
  }
  // grouped by file: a heading line per file, then its findings
  t.match(
    r.stdout,
    /\nterraform\/terraform\.tfvars\nterraform\/terraform\.tfvars:\d+: BAD_ATTRIBUTE [^\n]*\n {4}fix: [^\n]*\nterraform\/terraform\.tfvars:\d+: INERT_PARAM /,
  )
  t.notMatch(r.stdout, /UNRESOLVED_PARAM/, 'the knob left out of the catalog is not reported again as unresolved')
})
