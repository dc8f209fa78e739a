// The mistakes a template author makes, each reported once at its line: through the real
// `ies-processor --extract-catalog --strict` binary (what an author and CI run on the
// parameter-values file), through the gate (also for a service the configuration turns off) and
// through lintTree (the whole tree, as check:templates runs it).
import { join } from 'node:path'
import t from 'tap'
import { lintTree, runGate, type Finding } from '@ies/processor-lib'
import { cli, tree } from './helpers.ts'

const PARAMS = 'terraform/terraform.tfvars'

/** A correct parameter-values file with one service, its knob inside its gate. */
const GOOD = `# @param name | displayName=Name | default=demo
name = "demo"

# @module services.kv | displayName=KV | category=Databases | description=Key-value tables
# @section services.kv.enabled begin

# @param services.kv.size | displayName=Size | type=number | pattern=^[0-9]+$ | default=3
kv_size = 3

# @section services.kv.enabled end
`

/** The same file with the knob's two lines (7-8) replaced. */
const withKnob = (lines: string) =>
  GOOD.replace('# @param services.kv.size | displayName=Size | type=number | pattern=^[0-9]+$ | default=3\nkv_size = 3', lines)

const lineOf = (f: { file: string; line: number; code: string }) => `${f.file}:${f.line} ${f.code}`

/** The strict extraction's stderr: each line `file:line CODE message`, and each file:line printed once in it. */
async function strict(text: string) {
  const dir = await tree({ [PARAMS]: text })
  const run = await cli(['--extract-catalog', dir, '--provider', 'aws', '--strict', '--output', join(dir, 'catalog.json')])
  const lines = run.stderr.split('\n').filter(Boolean)
  return { run, lines, dir }
}

const cases: { name: string; text: string; want: string; message?: RegExp }[] = [
  {
    name: 'an inert @param (a blank line before its value line)',
    text: withKnob('# @param services.kv.size | displayName=Size | type=number | default=3\n\nkv_size = 3'),
    want: `${PARAMS}:7 INERT_PARAM`,
    message: /blank line 8/,
  },
  {
    name: 'a multi-line value site',
    text: withKnob('# @param services.kv.tags | displayName=Tags\nkv_tags = {\n  team = "data"\n}'),
    want: `${PARAMS}:8 MULTILINE_VALUE`,
    message: /@param services\.kv\.tags: the value line opens an unclosed bracket/,
  },
  {
    name: 'an unmatched @section (begin without end)',
    text: GOOD.replace('# @section services.kv.enabled end\n', ''),
    want: `${PARAMS}:5 UNMATCHED_SECTION`,
    message: /begin never ends/,
  },
  {
    name: 'crossed sections',
    text: GOOD.replace('# @section services.kv.enabled begin\n', '# @section services.kv.enabled begin\n# @section domain begin\n').replace(
      '# @section services.kv.enabled end\n',
      '# @section services.kv.enabled end\n# @section domain end\n',
    ),
    want: `${PARAMS}:11 UNMATCHED_SECTION`,
    message: /@section domain begin \(line 6\) is still open/,
  },
  {
    name: 'a "|" inside pattern= (rule 9)',
    text: withKnob('# @param services.kv.size | displayName=Size | type=text | pattern=^(small|large)$ | default=small\nkv_size = "small"'),
    want: `${PARAMS}:7 BAD_ATTRIBUTE`,
    message: /segment "large\)\$" is not key=value: the "\|" before it splits the decorator \(rule 9\).*regex alternation in pattern=/,
  },
  {
    name: 'a duplicate attribute',
    text: withKnob('# @param services.kv.size | displayName=Size | displayName=Size again | default=3\nkv_size = 3'),
    want: `${PARAMS}:7 DUPLICATE_ATTRIBUTE`,
    message: /"displayName" is given twice/,
  },
  {
    name: 'options that are not JSON',
    text: withKnob(`# @param services.kv.size | displayName=Size | options=[{value: 3, label: '3'}] | default=3\nkv_size = 3`),
    want: `${PARAMS}:7 BAD_OPTIONS`,
  },
  {
    name: 'a default= that differs from the value below it',
    text: withKnob('# @param services.kv.size | displayName=Size | type=number | default=5\nkv_size = 3'),
    want: `${PARAMS}:7 DEFAULT_MISMATCH`,
    message: /default=5 differs from the value 3 on line 8/,
  },
  {
    name: 'a service with no @module',
    text: GOOD.replace(/^# @module services\.kv .*\n/m, '# a comment where the @module was\n'),
    want: `${PARAMS}:7 UNDECLARED_SERVICE`,
    message: /no @module services\.kv/,
  },
]

t.test('the correct file passes --strict', async (t) => {
  const { run, lines } = await strict(GOOD)
  t.equal(run.code, 0)
  t.same(lines, [])
})

for (const c of cases) {
  t.test(`--strict: ${c.name}`, async (t) => {
    const { run, lines } = await strict(c.text)
    t.equal(run.code, 1, 'strict fails')
    t.equal(lines.length, 1, `exactly one finding: ${run.stderr}`)
    t.equal(lines[0]!.split(' ').slice(0, 2).join(' '), c.want)
    const site = c.want.split(' ')[0]!
    t.equal(lines[0]!.split(site).length - 1, 1, 'file:line printed once')
    if (c.message) t.match(lines[0], c.message)
    // The whole-tree check names it the same way, once.
    const dir = await tree({ [PARAMS]: c.text })
    const lint = await lintTree({ templatesDir: dir, provider: 'aws' })
    t.same(lint.findings.map(lineOf), [c.want])
  })
}

t.test('without --strict a "|" in pattern= is still reported, and the exit code stays 0', async (t) => {
  const dir = await tree({ [PARAMS]: cases.find((c) => c.want.endsWith('BAD_ATTRIBUTE'))!.text })
  const run = await cli(['--extract-catalog', dir, '--provider', 'aws'])
  t.equal(run.code, 0)
  t.match(run.stderr, /^terraform\/terraform\.tfvars:7 BAD_ATTRIBUTE .*"\|"/m)
  t.notOk(JSON.parse(run.stdout).services.kv.fields.size, 'the field is left out of the catalog')
})

const config = (kvEnabled: boolean) => ({ name: 'demo', services: { kv: { enabled: kvEnabled, size: 3 } } })
const gateLines = (findings: Finding[]) => findings.map(lineOf)

t.test('the gate: an unmatched section is reported once, with no UNRESOLVED_PARAM cascade inside it', async (t) => {
  const text = GOOD.replace('# @section services.kv.enabled end\n', '')
  const dir = await tree({ [PARAMS]: text })
  // kv's knob is absent from this configuration: inside a broken file it is not reported again
  const r = await runGate({ templatesDir: dir, config: { name: 'demo', services: { kv: { enabled: true } } } })
  t.same(gateLines(r.findings), [`${PARAMS}:5 UNMATCHED_SECTION`])
})

t.test('the gate reports the mistakes of a service the configuration turns off', async (t) => {
  const text = withKnob('# @param services.kv.size | displayName=Size | type=number | default=3\n\nkv_size = 3')
  const dir = await tree({ [PARAMS]: text })
  for (const enabled of [true, false]) {
    const r = await runGate({ templatesDir: dir, config: config(enabled) })
    t.same(gateLines(r.findings), [`${PARAMS}:7 INERT_PARAM`], `kv ${enabled ? 'on' : 'off'}: reported once`)
    t.notOk(r.ok)
  }
  const multi = await tree({ [PARAMS]: withKnob('# @param services.kv.size | displayName=Size\nkv_size = [\n  3,\n]') })
  const off = await runGate({ templatesDir: multi, config: config(false) })
  t.same(gateLines(off.findings), [`${PARAMS}:8 MULTILINE_VALUE`], 'a multi-line site in a disabled section')
})

t.test('lintTree: a module call of a catalog service outside its gate', async (t) => {
  const main = `locals {
  name_prefix = "x"
}

module "kv" {
  source = "./modules/kv"
}

# @section services.kv.enabled begin
module "kv_gated" {
  source = "./modules/kv"
}
# @section services.kv.enabled end
`
  const dir = await tree({ [PARAMS]: GOOD, 'terraform/main.tf': main, 'terraform/modules/kv/main.tf': '' })
  const lint = await lintTree({ templatesDir: dir, provider: 'aws' })
  t.same(lint.findings.map(lineOf), ['terraform/main.tf:5 UNGATED_MODULE'])
  t.match(lint.findings[0]!.message, /module "kv" \(\.\/modules\/kv\) is outside its @section services\.kv\.enabled gate/)
})

t.test('lintTree: decorators outside the parameter-values file are checked too', async (t) => {
  const values = 'global:\n  # @param name\n\n  name: demo\n  # @section domain begin\n  ingress: true\n'
  const dir = await tree({ [PARAMS]: GOOD, 'charts/x/values.yaml': values })
  const lint = await lintTree({ templatesDir: dir, provider: 'aws' })
  t.same(lint.findings.map(lineOf), ['charts/x/values.yaml:2 INERT_PARAM', 'charts/x/values.yaml:5 UNMATCHED_SECTION'])
})
