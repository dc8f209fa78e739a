// A plugin author who declares a new service's root variable outside its `@section` in
// `variables.tf` gets, for every configuration without the service, tflint's
// `terraform_unused_declarations`; the fix line under it says the project's rule (move it inside the
// service's section, whose lines it names: docs/template-authors.md, "tflint and disabled services"),
// not tflint's own sentence. Checked on a copy of templates/ with the DynamoDB fixture service added:
// the fix on its own, then through check:templates' scan with the real tflint.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { extractCatalog, processTree } from '@ies/processor-lib'
import { missingScanner, scanTrees, SCANNERS } from '../../../scripts/check-templates/scanners.ts'
import { unusedDeclarationFix } from '../../../scripts/check-templates/unused-declarations.ts'
import { addService } from '../../fixtures/services/add-service.ts'
import { configFrom, templatesDir } from '../../templates/helpers.ts'

t.setTimeout(600_000)
const work = mkdtempSync(join(tmpdir(), 'ies-unused-declarations-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const tree = join(work, 'templates')
cpSync(templatesDir, tree, { recursive: true })
addService('dynamodb', tree)

// The author's mistake: `dynamodb_deletion_protection` moved below the section's end, as a module's
// own variables.tf has its variables, ungated.
const variablesTf = join(tree, 'terraform/variables.tf')
const stray = /\nvariable "dynamodb_deletion_protection" \{\n[^}]*\}\n/
const declaration = stray.exec(readFileSync(variablesTf, 'utf8'))![0]
writeFileSync(variablesTf, `${readFileSync(variablesTf, 'utf8').replace(declaration, '\n')}${declaration}`)
const lines = readFileSync(variablesTf, 'utf8').split('\n')
const lineOf = (text: string, from = 0) => lines.findIndex((l, i) => i >= from && l === text) + 1
const begin = lineOf('# @section services.dynamodb.enabled begin')
const end = lineOf('# @section services.dynamodb.enabled end', begin)
const strayLine = lineOf('variable "dynamodb_deletion_protection" {')
const mainLines = readFileSync(join(tree, 'terraform/main.tf'), 'utf8').split('\n')
const mainBegin = mainLines.indexOf('# @section services.dynamodb.enabled begin') + 1
const mainEnd = mainLines.indexOf('# @section services.dynamodb.enabled end', mainBegin) + 1

const unused = (file: string, line: number, name: string) => ({
  file,
  line,
  rule: 'terraform_unused_declarations',
  message: `terraform_unused_declarations: variable "${name}" is declared but not used`,
})

t.test("the fix names the service's section and its lines", async (t) => {
  t.ok(begin > 0 && end > begin && strayLine > end, 'the copy has the section and the variable below it')
  const fix = unusedDeclarationFix(tree)
  t.equal(
    fix(unused('terraform/variables.tf', strayLine, 'dynamodb_deletion_protection')),
    `move variable "dynamodb_deletion_protection" inside the services.dynamodb.enabled section of terraform/variables.tf (lines ${begin}-${end}), so a configuration without dynamodb comments it out with the module that reads it (docs/template-authors.md, "tflint and disabled services")`,
  )

  // A file without the service's section: the fix names the section that reads the variable.
  const extra = join(tree, 'terraform/dynamodb_extra.tf')
  writeFileSync(extra, 'variable "dynamodb_stray" {\n  type = string\n}\n')
  t.teardown(() => rmSync(extra))
  const main = join(tree, 'terraform/main.tf')
  const mainBefore = readFileSync(main, 'utf8')
  t.teardown(() => writeFileSync(main, mainBefore))
  writeFileSync(
    main,
    mainBefore.replace(
      '  tags                = local.tags\n}\n# @section services.dynamodb.enabled end',
      '  tags                = local.tags\n  stray = var.dynamodb_stray\n}\n# @section services.dynamodb.enabled end',
    ),
  )
  t.match(
    unusedDeclarationFix(tree)(unused('terraform/dynamodb_extra.tf', 1, 'dynamodb_stray')),
    `declare variable "dynamodb_stray" inside a "# @section services.dynamodb.enabled begin" ... "end" pair in terraform/dynamodb_extra.tf, as the block that reads it is in terraform/main.tf (lines ${mainBegin}-${mainEnd + 1})`,
  )
})

t.test("tflint's own fix stands where the rule does not apply", async (t) => {
  const fix = unusedDeclarationFix(tree)
  t.equal(fix(unused('terraform/modules/dynamodb/variables.tf', 1, 'table_name')), null, "a module's variable")
  t.equal(fix(unused('terraform/variables.tf', 1, 'nothing_reads_this')), null, 'a variable nothing reads: remove it')
  t.equal(
    fix({ ...unused('terraform/variables.tf', strayLine, 'dynamodb_deletion_protection'), rule: 'terraform_typed_variables' }),
    null,
    'another rule',
  )
  t.equal(fix(unused('terraform/variables.tf', 1, 'name')), null, 'a variable read outside every service section (locals.tf)')
  const domainReaders = new Set(
    [...readFileSync(join(tree, 'terraform/main.tf'), 'utf8').matchAll(/^module "(\w+)"[^]*?\n\}/gm)]
      .filter((m) => /var\.domain\b/.test(m[0]))
      .map((m) => m[1]),
  )
  t.ok(domainReaders.size > 1, `var.domain is read by several services' module blocks: ${[...domainReaders].join(', ')}`)
  t.equal(fix(unused('terraform/variables.tf', 1, 'domain')), null, 'a variable several services read: no one section')
})

// Without tflint (not provisioned) the scan is skipped, except under CI, where it must run.
const missing = missingScanner({ tflint: SCANNERS.tflint })
const inCi = !!process.env.CI && process.env.CI !== 'false'
t.test(
  'through the scan, with the real tflint, on the tree of a configuration without the service',
  { skip: missing && !inCi ? missing : false },
  async (t) => {
    const catalog = await extractCatalog({ templatesDir: tree, provider: 'aws', commit: 'unused-declarations' })
    const generated = await processTree({
      templatesDir: tree,
      config: configFrom(catalog, { enabled: (k) => k !== 'dynamodb', domain: '' }),
    })
    t.ok(generated.ok)
    // tflint alone: checkov's findings are not this test's (check-templates.test.ts runs both)
    const [scan] = await scanTrees([{ names: ['without dynamodb'], files: generated.files }], join(work, 'scan'), tree, ['tflint'])
    const found = scan.findings
    t.same(
      found.map((f) => `${f.file}:${f.line} ${f.rule}`),
      [`terraform/variables.tf:${strayLine} terraform_unused_declarations`],
      'tflint finds the stray variable, and nothing else',
    )
    t.match(
      found[0]?.fix,
      `move variable "dynamodb_deletion_protection" inside the services.dynamodb.enabled section of terraform/variables.tf (lines ${begin}-${end})`,
    )
    t.notMatch(found[0]?.fix, 'is declared but not used', "not tflint's sentence")
  },
)
