// The built-in organisation rules (templates/policies): each has a Rego test with a passing and a
// failing configuration, all pass under `opa test`; check:templates names a broken rule at its file
// and line, and a rule that does not compile at the line opa reports.
import t from 'tap'
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { opaBinary, policyFindings } from '../../scripts/check-templates/policies.ts'

const run = promisify(execFile)
const TEMPLATES = path.join(import.meta.dirname, '..', '..', 'templates')
const POLICIES = path.join(TEMPLATES, 'policies')

t.test('every built-in rule has a passing and a failing configuration, and both hold', async (t) => {
  const names = await readdir(POLICIES)
  const rules = names.filter((n) => n.endsWith('.rego') && !n.endsWith('_test.rego') && n !== 'ies.rego' && n !== 'lib.rego')
  t.ok(rules.length >= 10, `${rules.length} rules`)
  const { stdout } = await run(opaBinary(), ['test', POLICIES, '--format=json'])
  const results = JSON.parse(stdout) as Array<{ package: string; name: string; fail?: boolean; error?: unknown }>
  for (const file of rules) {
    const rule = file.replace(/\.rego$/, '')
    const mine = results.filter((r) => r.package === `data.ies.rules.${rule}_test`)
    t.ok(
      mine.some((r) => r.name.startsWith('test_passing')) && mine.some((r) => r.name.startsWith('test_failing')),
      `${rule}: a passing and a failing test`,
    )
    t.same(
      mine.filter((r) => r.fail || r.error).map((r) => r.name),
      [],
      `${rule}: its tests pass`,
    )
  }
  t.same(await policyFindings(TEMPLATES), [], 'check:templates finds nothing')
})

t.test('check:templates names a broken rule at its file and line', async (t) => {
  const tree = await mkdtemp(path.join(os.tmpdir(), 'ies-policy-check-'))
  t.teardown(() => rm(tree, { recursive: true, force: true }))
  await cp(POLICIES, path.join(tree, 'policies'), { recursive: true })
  const file = path.join(tree, 'policies', 'rds_multi_az.rego')
  // The rule now looks at a field that does not exist: its failing configuration passes.
  await writeFile(file, (await readFile(file, 'utf8')).replace('"multiAz", false', '"multiAZ", true'))
  const findings = await policyFindings(tree)
  t.equal(findings.length, 1, JSON.stringify(findings))
  const lines = (await readFile(file, 'utf8')).split('\n')
  t.match(findings[0], { code: 'POLICY', file: 'policies/rds_multi_az.rego', line: lines.findIndex((l) => l.startsWith('deny')) + 1 })
  t.match(findings[0].message, /rule rds_multi_az: test test_failing_configuration_is_refused_at_its_field \(policies\/rds_multi_az_test\.rego:\d+\) fails/)

  await writeFile(file, `${await readFile(file, 'utf8')}\ndeny contains x if { x = }\n`)
  const broken = await policyFindings(tree)
  t.equal(broken.length, 1)
  t.match(broken[0], { code: 'POLICY', file: 'policies/rds_multi_az.rego', line: lines.length + 1, message: /rego_parse_error/ })
})
