// The rules' evaluator on its own: the input carries the catalog's defaults and no secret, the
// built-in rules compile once (a second start reads the cache; an opa that does not run is named), broken
// rules stop with opa's file and line, and one evaluation stays well under the aim of 2 ms (p50).
import t from 'tap'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { extractCatalog } from '@ies/processor-lib'
import { catalogView } from '@ies/processor-lib/contract/view'
import { policyWasm } from '../../../plugins/policies/bundle.ts'
import { PolicyEvaluator } from '../../../plugins/policies/evaluator.ts'
import { policyInput } from '../../../plugins/policies/input.ts'
import { opaBinary } from '../../../scripts/check-templates/policies.ts'

const TEMPLATES = path.join(import.meta.dirname, '..', '..', '..', 'templates')
const BUILT_IN = path.join(TEMPLATES, 'policies')

t.test('the evaluator', async (t) => {
  const cache = await mkdtemp(path.join(os.tmpdir(), 'ies-policy-cache-'))
  t.teardown(() => rm(cache, { recursive: true, force: true }))
  const catalog = catalogView(await extractCatalog({ templatesDir: TEMPLATES, provider: 'aws' })).catalog

  t.test('the input: defaults filled in, no secret', async (t) => {
    const input = policyInput(
      {
        name: 'shop',
        labels: { tier: 'production' },
        services: { rds: { enabled: true, multiAz: true }, quantum: { enabled: true } },
        gitRepository: { url: 'https://git.example.com/x.git', branch: 'main', deployKey: 'SECRET-TOKEN' },
        cloudCredentialId: '11111111-2222-3333-4444-555555555555',
      },
      catalog,
      { team: 'platform' },
    )
    const rds = input.environment.services as Record<string, Record<string, unknown>>
    t.equal(rds.rds.multiAz, true, 'a value set wins')
    t.equal(rds.rds.deletionProtection, true, "an unset field is the templates' default")
    t.same(rds.quantum, { enabled: true }, 'a service the catalog does not know as written')
    t.equal(input.environment.team, 'platform')
    t.notMatch(JSON.stringify(input), /SECRET-TOKEN|11111111-2222/, 'no deploy key, no credential')
    t.notOk('plan' in input, 'no plan yet')
  })

  t.test('compiled once, then read from the cache', async (t) => {
    const first = await policyWasm([BUILT_IN], opaBinary(), cache)
    t.equal((await readdir(cache)).filter((f) => f.endsWith('.wasm')).length, 1)
    const again = await policyWasm([BUILT_IN], opaBinary(), cache)
    t.same(Buffer.from(again), Buffer.from(first))
    await t.rejects(
      policyWasm([BUILT_IN], '/nonexistent/opa', cache),
      { name: 'PolicyBuildError', message: /\/nonexistent\/opa did not run.*set OPA_PATH/ },
      'an opa that does not run is named',
    )
  })

  t.test('a rule that does not compile: opa names its file and line', async (t) => {
    const org = await mkdtemp(path.join(os.tmpdir(), 'ies-org-rules-'))
    t.teardown(() => rm(org, { recursive: true, force: true }))
    await writeFile(path.join(org, 'broken.rego'), 'package ies.rules.broken\n\ndeny contains x if {\n  x :=\n}\n')
    await t.rejects(policyWasm([BUILT_IN, org], opaBinary(), cache), {
      name: 'PolicyBuildError',
      message: /broken\.rego:5: rego_parse_error/,
    })
  })

  t.test('one evaluation: p50 under 2 ms', async (t) => {
    const evaluator = await PolicyEvaluator.load(await policyWasm([BUILT_IN], opaBinary(), cache))
    const every = Object.fromEntries(Object.keys(catalog.services).map((key) => [key, { enabled: true }]))
    const doc = { name: 'shop', provider: 'aws', region: 'eu-west-1', labels: { tier: 'production' }, services: every }
    const result = evaluator.evaluate(policyInput(doc, catalog))
    t.same(
      result.deny.map((v) => v.rule),
      ['rds_multi_az', 'vpc_nat_per_zone'],
      "the templates' defaults a production environment may not keep",
    )
    const times: number[] = []
    for (let i = 0; i < 300; i++) {
      const started = performance.now()
      evaluator.evaluate(policyInput(doc, catalog))
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    t.ok(times[150] < 2, `p50 ${times[150].toFixed(3)} ms`)
  })
})
