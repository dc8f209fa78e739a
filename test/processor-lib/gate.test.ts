// The generation gate: each failure category, and a clean tree passing.
import t from 'tap'
import { runGate } from '@ies/processor-lib'
import { tree } from './helpers.ts'

const config = { name: 'acme', region: 'eu-west-1', domain: '', services: { eks: { enabled: false } } }
const clean = {
  'terraform/variables.tf': 'variable "name" {\n  type = string\n}\n',
  'terraform/main.tf':
    'locals {\n  # @param region\n  region = "us-east-1"\n}\n\n# @section services.eks.enabled begin\nmodule "eks" {\n  source = "./eks"\n  name   = var.name\n  region = local.region\n}\n# @section services.eks.enabled end\n',
  'terraform/terraform.tfvars': '# @param name | displayName=Name\nname = "demo"\n',
  'values/app.yaml': '# @param domain\nhost: example.com\n',
  'chart/Chart.yaml': 'name: x\n',
  'chart/templates/deploy.yaml': '{{- if .Values.x }}\nkind: {{ .Values.kind }}\n{{- end }}\n',
  'data.json': '{"a": 1}\n',
}

t.test('a clean tree passes', async (t) => {
  const gate = await runGate({ templatesDir: await tree(clean), config })
  t.same(gate.findings, [])
  t.ok(gate.ok)
})

const cases: [string, Record<string, string>, string, string[]?][] = [
  ['unresolved parameter', { 'a.tf': '# @param services.eks.size\nsize = 1\n' }, 'UNRESOLVED_PARAM'],
  ['inert decorator', { 'a.yaml': '# @param name\n\nname: x\n' }, 'INERT_PARAM'],
  ['section that never closes', { 'a.tf': '# @section services.eks.enabled begin\nx = 1\n' }, 'UNMATCHED_SECTION'],
  ['multi-line site', { 'a.tf': '# @param name\nx = <<EOT\ny\nEOT\n' }, 'MULTILINE_VALUE'],
  ['terraform fmt violation', { 'a.tf': 'x    = 1\n' }, 'FORMAT'],
  ['HCL that does not parse', { 'a.tf': 'resource "x" {\n' }, 'HCL_PARSE'],
  ['undeclared variable', { 'a.tf': 'locals {\n  x = var.missing\n}\n' }, 'UNDECLARED_REFERENCE'],
  ['undeclared local', { 'a.tf': 'output "x" {\n  value = local.nope\n}\n' }, 'UNDECLARED_REFERENCE'],
  ['YAML that does not parse', { 'a.yaml': 'a: [1, 2\n' }, 'YAML_PARSE'],
  ['JSON that does not parse', { 'a.json': '{"a": }\n' }, 'JSON_PARSE'],
  ['expected file absent', { 'a.tf': 'x = 1\n' }, 'MISSING_OUTPUT', ['.github/workflows/deploy.yml']],
]

for (const [name, files, code, expected] of cases) {
  t.test(name, async (t) => {
    const gate = await runGate({ templatesDir: await tree(files), config, expectedFiles: expected })
    t.notOk(gate.ok)
    t.ok(
      gate.findings.some((f) => f.code === code),
      `${code} reported: ${JSON.stringify(gate.findings)}`,
    )
  })
}

t.test('a substituted value that breaks fmt alignment of trailing comments is caught', async (t) => {
  const files = { 'a.tfvars': '# @param name\nname   = "ab" # c1\nregion = "cd" # c2\n' }
  const gate = await runGate({ templatesDir: await tree(files), config: { name: 'a-much-longer-name' } })
  t.ok(gate.findings.some((f) => f.code === 'FORMAT'))
})
