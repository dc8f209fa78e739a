// Reading Terraform's JSON plan (server/src/jobs/plan/plan-reading.ts) and the push guard
// (push-plan.ts), on plan documents shaped as `terraform show -json` writes them: the counts of the
// "Plan:" line (a replacement is one to add and one to destroy), sensitive values masked, long values
// cut, data holders first, drift limited to what the configuration sets, and the guard's exactness.
// The end-to-end test against moto is plan.test.ts.
import t from 'tap'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { DATA_HOLDERS_FILE, parseDataHolders } from '@ies/server/jobs/plan/data-holders'
import { configuredAttributes, dataAtRisk, driftOf, resourcesOf, summaryOf, VALUE_CAP } from '@ies/server/jobs/plan/plan-reading'
import { guard } from '@ies/server/jobs/plan/push-plan'

const holders = parseDataHolders(readFileSync(path.join(BUNDLED_TEMPLATES_DIR, DATA_HOLDERS_FILE), 'utf8'))

const change = (address: string, type: string, actions: string[], before: object | null, after: object | null, extra: object = {}) => ({
  address,
  mode: 'managed' as const,
  type,
  change: { actions, before: before as Record<string, unknown> | null, after: after as Record<string, unknown> | null, ...extra },
})

t.test('counts, actions and attributes as Terraform plans them', async (t) => {
  const changes = [
    change(
      'module.rds.aws_db_instance.this',
      'aws_db_instance',
      ['delete', 'create'],
      { engine_version: '16' },
      { engine_version: '17' },
      {
        replace_paths: [['engine_version']],
      },
    ),
    change(
      'module.sqs.aws_sqs_queue.this',
      'aws_sqs_queue',
      ['update'],
      { visibility_timeout_seconds: 30, name: 'q' },
      {
        visibility_timeout_seconds: 60,
        name: 'q',
      },
    ),
    change('aws_iam_role.r', 'aws_iam_role', ['create'], null, { name: 'r' }),
    change('aws_s3_bucket.gone', 'aws_s3_bucket', ['delete'], { bucket: 'b' }, null),
    change('aws_iam_policy.same', 'aws_iam_policy', ['no-op'], { a: 1 }, { a: 1 }),
    { ...change('data.aws_caller_identity.x', 'aws_caller_identity', ['read'], null, {}), mode: 'data' as const },
  ]
  const { resources, noOp } = resourcesOf(changes, holders)
  t.same(summaryOf(resources, noOp), { add: 2, change: 1, destroy: 2, replace: 1, noOp: 1 }, 'Plan: 2 to add, 1 to change, 2 to destroy')
  t.same(
    resources.map((r) => [r.address, r.action, r.holdsData]),
    [
      ['aws_s3_bucket.gone', 'delete', true],
      ['module.rds.aws_db_instance.this', 'replace', true],
      ['module.sqs.aws_sqs_queue.this', 'update', true],
      ['aws_iam_role.r', 'create', false],
    ],
    'data holders first, then by address; data sources and no-ops left out',
  )
  t.same(resources[2]!.attributes, [{ name: 'visibility_timeout_seconds', before: '30', after: '60' }], 'only what changes')
  t.same(dataAtRisk(resources), ['aws_s3_bucket.gone', 'module.rds.aws_db_instance.this'])
})

t.test('sensitive values are masked, unknown ones named, long ones cut', async (t) => {
  const long = 'x'.repeat(1000)
  const { resources } = resourcesOf(
    [
      change(
        'aws_db_instance.db',
        'aws_db_instance',
        ['update'],
        { password: 'old-secret', tags: { a: long }, arn: 'a' },
        {
          password: 'new-secret',
          tags: { a: `${long}y` },
          arn: null,
        },
        {
          before_sensitive: { password: true },
          after_sensitive: { password: true },
          after_unknown: { arn: true },
        },
      ),
    ],
    holders,
  )
  const byName = Object.fromEntries(resources[0]!.attributes.map((a) => [a.name, a]))
  t.same(byName.password, { name: 'password', before: '(sensitive)', after: '(sensitive)' })
  t.equal(byName.arn!.after, '(known after apply)')
  t.equal(byName.tags!.after!.length, VALUE_CAP, 'cut')
  t.notOk(JSON.stringify(resources).includes('secret'), 'no sensitive value anywhere')
})

t.test('a log group without retention holds nothing', async (t) => {
  const { resources } = resourcesOf(
    [
      change('aws_cloudwatch_log_group.a', 'aws_cloudwatch_log_group', ['delete'], { retention_in_days: 0 }, null),
      change('aws_cloudwatch_log_group.b', 'aws_cloudwatch_log_group', ['delete'], { retention_in_days: 30 }, null),
    ],
    holders,
  )
  t.same(dataAtRisk(resources), ['aws_cloudwatch_log_group.b'])
})

t.test('drift counts only the attributes the configuration sets', async (t) => {
  const plan = {
    configuration: {
      root_module: {
        module_calls: {
          s3: { module: { resources: [{ address: 'aws_s3_bucket.this', expressions: { bucket: {}, force_destroy: {} } }] } },
          sqs: { module: { resources: [{ address: 'aws_sqs_queue.this', expressions: { visibility_timeout_seconds: {} } }] } },
        },
      },
    },
  }
  const { resources } = resourcesOf(
    [
      change('module.s3.aws_s3_bucket.this', 'aws_s3_bucket', ['update'], { versioning: [] }, { versioning: [{ enabled: true }] }),
      change(
        'module.sqs.aws_sqs_queue.this',
        'aws_sqs_queue',
        ['update'],
        { visibility_timeout_seconds: 30 },
        { visibility_timeout_seconds: 99 },
      ),
      change('module.sqs.aws_sqs_queue.dlq', 'aws_sqs_queue', ['delete'], { name: 'dlq' }, null),
    ],
    holders,
  )
  const drift = driftOf(resources, configuredAttributes(plan))
  t.same(
    drift.map((r) => [r.address, r.attributes.map((a) => a.name)]),
    [
      ['module.sqs.aws_sqs_queue.dlq', []],
      ['module.sqs.aws_sqs_queue.this', ['visibility_timeout_seconds']],
    ],
    "a bucket's versioning filled in by the refresh is no drift; a changed timeout and a deleted queue are",
  )
})

t.test('the guard wants exactly the addresses at risk', async (t) => {
  const atRisk = ['module.sqs.aws_sqs_queue.this', 'module.sqs.aws_sqs_queue.dead_letter']
  t.doesNotThrow(() => guard([], []), 'nothing at risk')
  t.doesNotThrow(() => guard(atRisk, [...atRisk].reverse()), 'all of them, in any order')
  t.throws(() => guard(atRisk), { code: 'PUSH_WOULD_DESTROY_DATA', details: { addresses: atRisk } }, 'none confirmed')
  t.throws(() => guard(atRisk, atRisk.slice(1)), { code: 'PUSH_WOULD_DESTROY_DATA' }, 'some of them')
  t.throws(() => guard(atRisk, [...atRisk, 'aws_s3_bucket.other']), { code: 'PUSH_WOULD_DESTROY_DATA' }, 'others besides')
})

t.test('the templates list the data holders the upgrade check knew', async (t) => {
  for (const type of ['aws_db_instance', 'aws_s3_bucket', 'aws_sqs_queue', 'aws_kms_key', 'aws_route53_zone']) t.ok(holders[type], type)
  t.throws(() => parseDataHolders('{'), { code: 'DATA_HOLDERS_INVALID' })
  t.throws(() => parseDataHolders('{"types": {"a": 1}}'), { code: 'DATA_HOLDERS_INVALID' })
})
