// Client consumption rule 6: the CI guard between the live catalog and the static configuration.
import t from 'tap'
import { existsSync } from 'node:fs'
import { checkConsistency, compareCatalogs, isAllowed, strictEqual, unexpectedDifferences } from '../../../desktop/src/catalog/guard.ts'
import { runGuard } from '../../../desktop/scripts/catalog-guard.ts'
import staticCatalog from '../../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

t.test('type-strict comparison: the string "false" differs from false', async (t) => {
  t.notOk(strictEqual('false', false))
  t.notOk(strictEqual('3', 3))
  t.ok(strictEqual({ a: [1, { b: false }] }, { a: [1, { b: false }] }))
  // the static configuration holds attributes as the extractor writes them: strings
  t.equal(staticCatalog.services.rds.fields.multiAz.default, 'false')
  t.equal(staticCatalog.services.eks.fields.nodeMinSize.default, '2')
  const live = structuredClone(staticCatalog) as any
  live.services.rds.fields.multiAz.default = false
  live.services.eks.fields.nodeMinSize.default = 2
  t.same(
    compareCatalogs(live, staticCatalog),
    [
      { path: 'services.eks.fields.nodeMinSize.default', live: 2, static: '2' },
      { path: 'services.rds.fields.multiAz.default', live: false, static: 'false' },
    ],
    'a typed value never equals the attribute string',
  )
})

t.test('service keys, field keys, types, defaults, available (field and service) and patterns are compared', async (t) => {
  const live = structuredClone(staticCatalog) as any
  delete live.services.msk
  live.services.kinesis = { displayName: 'Kinesis', fields: { enabled: { displayName: 'Enabled', type: 'toggle', default: false } } }
  delete live.services.rds.fields.multiAz
  live.services.rds.fields.iops = { displayName: 'IOPS', type: 'number', default: '3000' }
  live.services.eks.fields.nodeMinSize.type = 'text'
  live.services.vpc.fields.cidr.pattern = '.*'
  live.services.s3.available = 'false'
  live.services.sqs.fields.fifo.available = 'false'
  live.global.fields.domain.default = 'example.com'
  t.same(
    compareCatalogs(live, staticCatalog)
      .map((d) => d.path)
      .sort(),
    [
      'global.fields.domain.default',
      'services.eks.fields.nodeMinSize.type',
      'services.kinesis',
      'services.msk',
      'services.rds.fields.iops',
      'services.rds.fields.multiAz',
      'services.s3.available',
      'services.sqs.fields.fifo.available',
      'services.vpc.fields.cidr.pattern',
    ],
  )
})

t.test('the allow-list covers intentional differences, by exact path or prefix', async (t) => {
  t.ok(isAllowed('services.vpc.fields.cidr.default', ['services.vpc']))
  t.notOk(isAllowed('services.vpcx', ['services.vpc']))
  const live = { ...structuredClone(staticCatalog), commit: 'abc' } as any
  live.services.vpc.fields.cidr.default = '10.1.0.0/16'
  t.same(unexpectedDifferences(live, staticCatalog, ['commit', 'services.vpc.fields.cidr.default']), [])
  t.equal(unexpectedDifferences(live, staticCatalog, ['commit']).length, 1)
})

t.test('internal consistency', async (t) => {
  t.same(checkConsistency(staticCatalog), [], 'the static configuration is consistent')
  const bad = structuredClone(staticCatalog) as any
  bad.schemaVersion = 2
  bad.services.rds.fields.multiAz.default = 'no'
  bad.services.rds.fields.allocatedStorage.default = 'twenty'
  bad.services.rds.fields.maxAllocatedStorage.default = '0'
  bad.services.lambda.fields.runtime.default = 'go1.x'
  bad.services.vpc.fields.azCount.default = '4'
  bad.services.vpc.fields.cidr.pattern = '(('
  bad.services.eks.fields.nodeMinSize.type = 'slider'
  bad.services.s3.available = false
  bad.services.sqs.fields.fifo.available = 'maybe'
  delete bad.services.sns.fields.enabled
  bad.errors = [{ code: 'BAD_PATH' }]
  const problems = checkConsistency(bad).join('\n')
  for (const re of [
    /schemaVersion is 2/,
    /multiAz: toggle default "no" is not true or false/,
    /allocatedStorage: number default "twenty" is not a number/,
    /maxAllocatedStorage: default "0" does not match its pattern/,
    /runtime: dropdown default "go1.x" is not one of the options/,
    /azCount: dropdown default "4" is not one of the options/,
    /cidr has a pattern that does not compile/,
    /nodeMinSize has unknown type "slider"/,
    /services\.s3\.available is false, not "true" or "false"/,
    /fifo\.available is "maybe", not "true" or "false"/,
    /sns has no enable toggle/,
    /1 extraction error/,
  ]) {
    t.match(problems, re)
  }
  const good = structuredClone(staticCatalog) as any
  good.services.s3.available = 'false'
  good.services.vpc.fields.azCount.default = 2
  good.services.rds.fields.multiAz.default = true
  t.same(checkConsistency(good), [], 'typed defaults (a template value) and "false" strings are consistent')
})

t.test('the guard against the live catalog from templates/', async (t) => {
  const result = await runGuard()
  if (result.skipped) {
    t.ok(!existsSync('templates/terraform/terraform.tfvars'), result.skipped)
    return
  }
  t.same(result.consistency, [], 'the live catalog is consistent')
  t.same(result.differences, [], 'the live catalog matches the static configuration (or the allow-list)')
})
