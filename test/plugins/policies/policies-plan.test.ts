// The organisation's rules on a push's plan, through the job engine's hook on a real server (the
// push job calls it right after the data guard, jobs/plan/push-plan.ts): the plan's changes become
// `input.plan` (attribute names only, never a value), a `deny` fails the push with POLICY_DENIED
// naming the rule and the resource address, a `warn` comes back as a line for the job's warnings, and
// each built-in plan rule passes a plan it accepts. (Terraform's side of the plan is tested by
// test/server/jobs/plan/plan.test.ts; here the plans are written out.)
import t from 'tap'
import { JobFailure } from '@ies/server/core/job-failure'
import { judgePlan } from '@ies/server/jobs/plan/plan-policies'
import { planInput } from '@ies/server/jobs/plan/plan-input'
import type { PlanOutcome } from '@ies/server/jobs/plan/plan-run'
import type { JobRecord } from '@ies/server/jobs/queue/store'
import { startTestApp } from '../../harness/app.ts'
import { createEnvironment, environmentBody } from '../../harness/jobs.ts'

type Change = PlanOutcome['resources'][number]

const change = (address: string, type: string, action: Change['action'], holdsData = false): Change => ({
  address,
  type,
  action,
  attributes: [{ name: 'engine_version', before: '"15.4"', after: '"SECRET-VALUE"' }],
  holdsData,
})

const outcome = (...resources: Change[]): PlanOutcome => ({
  kind: 'plan',
  summary: { add: 0, change: 0, destroy: 0, replace: 0, noOp: 0 },
  resources,
  dataAtRisk: [],
  terraformVersion: '1.9.0',
  seconds: 1,
})

const DB = 'module.rds[0].aws_db_instance.this'

t.test('rules on the plan', async (t) => {
  const ctx = await startTestApp(t)
  const services = { vpc: { enabled: true, singleNatGateway: false } }
  const prod = await createEnvironment(ctx, environmentBody({ name: 'shop-prod', labels: { tier: 'production' }, services }))
  const staging = await createEnvironment(ctx, environmentBody({ name: 'shop-staging', labels: { tier: 'staging' }, services }))
  // The context the runner gives every job's work (the hook under test is the one pushes use).
  const jobContext = ctx.app.jobs['context']
  const record = (env: { id: string }) => ({ _id: 'job', userId: 'dev', environmentId: env.id }) as JobRecord
  const judge = (env: { id: string }, plan: PlanOutcome) => judgePlan(jobContext, record(env), plan)

  t.test('the input: changes with attribute names, no value', async (t) => {
    const input = planInput(outcome(change(DB, 'aws_db_instance', 'update', true)))
    t.same(input, {
      resources: [{ address: DB, type: 'aws_db_instance', action: 'update', attributes: ['engine_version'], holdsData: true }],
    })
    t.notMatch(JSON.stringify(input), /SECRET-VALUE|15\.4/)
  })

  t.test('plan_data_destroy: refuses replacing a database in production, naming rule and address', async (t) => {
    const err = await judge(prod, outcome(change(DB, 'aws_db_instance', 'replace', true))).catch((e: unknown) => e)
    t.ok(err instanceof JobFailure, String(err))
    t.match(err, { code: 'POLICY_DENIED', message: /plan_data_destroy \(module\.rds\[0\]\.aws_db_instance\.this\)/ })
    t.match((err as JobFailure).details, {
      violations: [{ rule: 'plan_data_destroy', field: DB, fields: [DB, 'labels.allow-data-destroy'] }],
    })
    t.same(await judge(prod, outcome(change(DB, 'aws_db_instance', 'update', true))), [], 'an update in place passes')
  })

  t.test('plan_data_destroy: a warning in other tiers, returned for the job', async (t) => {
    const warnings = await judge(staging, outcome(change(DB, 'aws_db_instance', 'delete', true)))
    t.equal(warnings.length, 1)
    t.match(warnings[0], /^rule plan_data_destroy \(module\.rds\[0\]\.aws_db_instance\.this\): the plan would delete/)
  })

  t.test('plan_bucket_public_access: a bucket created without its public access block', async (t) => {
    const bucket = change('module.s3.aws_s3_bucket.this', 'aws_s3_bucket', 'create', true)
    const block = change('module.s3.aws_s3_bucket_public_access_block.this', 'aws_s3_bucket_public_access_block', 'create')
    await t.rejects(judge(staging, outcome(bucket)), {
      code: 'POLICY_DENIED',
      message: /plan_bucket_public_access \(module\.s3\.aws_s3_bucket\.this\)/,
    })
    t.same(await judge(staging, outcome(bucket, block)), [], 'with its block it passes')
  })

  t.test('a plan that changes nothing any rule reads', async (t) => {
    t.same(await judge(prod, outcome()), [])
    t.same(await judge(prod, outcome(change('aws_sqs_queue.jobs', 'aws_sqs_queue', 'update'))), [])
  })
})
