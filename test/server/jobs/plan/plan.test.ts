/**
 * Plans end to end against moto, with the generated S3 backend in moto's S3: an environment of a few
 * services (rds, sqs, s3; no vpc) is pushed to a real Git server and its branch applied to moto ONCE
 * (moto-stack.ts, as the apply test does); then, sharing that state:
 *   - a plan with no change shows 0 to add, change and destroy;
 *   - drift: a queue's visibility timeout changed through the AWS API shows exactly that address;
 *   - a changed RDS instance class plans one update in place naming instance_class;
 *   - two plans of one environment at once both succeed;
 *   - turning SQS off destroys queues (data holders): listed with holdsData, the push is refused
 *     without confirmDestroy and goes through with exactly those addresses;
 *   - a refused credential fails with CLOUD_CREDENTIAL_REFUSED, and neither a job record, a log
 *     line nor a file in the plan directory (looked at while Terraform runs) holds the secret.
 * moto runs with request authentication on (after the setup's few calls), so a wrong secret is refused.
 * Under CI=true a missing terraform or provider mirror fails the test; elsewhere it is skipped.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { createStateBucket, initBackend, plan as tfPlan } from '../../../../scripts/check-templates/moto-stack.ts'
import { terraform, terraformMissing, tfEnv } from '../../../../scripts/check-templates/terraform.ts'
import { ensureCliConfig } from '../../../../scripts/terraform/cli-config.ts'
import { startTestApp } from '../../../harness/app.ts'
import { eventually } from '../../../harness/eventually.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { startTestMoto } from '../../../harness/moto.ts'
import { recorder, type JobView } from '../../../harness/jobs.ts'

const run = promisify(execFile)
const inCi = !!process.env.CI && process.env.CI !== 'false'
const DEPLOY_KEY = 'iest_cGxhbi10ZXN0cy1kZXBsb3kta2V5LWZvci1wbGFucw'
const REGION = 'eu-central-1'
const BUCKET = 'ies-plan-test-state'

/**
 * What moto does not answer back after an apply of this tree, so that every later plan wants to set
 * it again (on AWS each is read back and the plan is empty): the attributes per resource address,
 * and the one resource moto cannot create (moto-gaps.ts), kept out of the apply. A plan of the
 * applied tree shows these and nothing else; the test compares IES's plan with Terraform's own.
 */
const MOTO_NOISE: Record<string, string[]> = {
  // DescribeDBInstances has no monitoring or Performance Insights settings.
  'module.rds.aws_db_instance.this': [
    'monitoring_interval',
    'monitoring_role_arn',
    'performance_insights_enabled',
    'performance_insights_kms_key_id',
  ],
  // DescribeDBParameters answers none of the parameters set.
  'module.rds.aws_db_parameter_group.this': ['parameter'],
  // The redrive policy comes back as JSON with other spacing.
  'module.sqs.aws_sqs_queue.this': ['redrive_policy'],
  // The logs bucket's encryption rule comes back without the bucket key setting.
  'module.s3.module.logs.aws_s3_bucket_server_side_encryption_configuration.this': ['rule'],
  'module.s3.aws_s3_bucket_server_side_encryption_configuration.this': ['rule'],
}
const NOT_CREATED = 'module.sqs.aws_sqs_queue_redrive_allow_policy.dead_letter'

/** A plan's resources with moto's noise taken out (attributes, then resources left with none). */
function withoutNoise(resources: any[]): any[] {
  return resources.flatMap((r) => {
    if (r.address === NOT_CREATED) return []
    const noise = MOTO_NOISE[r.address.replace(/\[[^\]]*\]/g, '')] ?? []
    const attributes = r.attributes.filter((a: any) => !noise.includes(a.name))
    return r.action === 'update' && attributes.length === 0 ? [] : [{ ...r, attributes }]
  })
}

const reason = terraformMissing()
if (reason) {
  if (inCi) t.fail(`${reason}: CI must plan against moto`)
  else t.plan(0, `${reason}; skipped outside CI`)
} else {
  t.setTimeout(20 * 60 * 1000)
  const { lines, logStream, seen } = recorder()
  // Set up once, shared by every case; a failure fails each case (and the teardowns still run).
  const ready = (async () => {
    const moto = await startTestMoto(t, { managedPolicies: true })
    const keys = { accessKeyId: 'AKIAIESPLANTEST00001', secretAccessKey: 'planTestSecretKeyThatMustNotLeak0123456789' }
    const awsEnv = tfEnv({
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    })
    /** One SQS Query API call "through the AWS API" (moto's authentication is off: any key is accepted). */
    const sqs = async (params: Record<string, string>): Promise<string> => {
      const res = await fetch(moto.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/20240101/${REGION}/sqs/aws4_request, SignedHeaders=host, Signature=0`,
        },
        body: new URLSearchParams({ Version: '2012-11-05', ...params }),
      })
      const text = await res.text()
      if (!res.ok) throw new Error(`SQS ${params.Action}: ${res.status} ${text}`)
      return text
    }
    await createStateBucket(moto.endpoint, { bucket: BUCKET, region: REGION, key: 'unused' } as never)

    const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
    t.teardown(() => git.stop())
    const remote = await git.createRepo('planned', { 'README.md': '# planned\n' })
    const { url, auth } = await startTestApp(
      t,
      {
        PUSH_ALLOWED_HOSTS: '127.0.0.1',
        AWS_ENDPOINT_URL: moto.endpoint,
        TERRAFORM_CLI_CONFIG: ensureCliConfig()!,
        JOBS_WAIT_TIMEOUT_MS: '600000',
      },
      { logStream },
    )
    // A fresh token for each request: the test outlives one.
    const dev = () => ({ ...auth('dev'), 'content-type': 'application/json' })
    const api = async (method: string, route: string, body?: unknown) => {
      const headers = body === undefined ? auth('dev') : dev()
      const res = await fetch(`${url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
      const text = await res.text()
      seen.push(text)
      return { status: res.status, body: JSON.parse(text) as any }
    }
    const job = async (route: string, body?: unknown): Promise<JobView> => {
      const queued = await api('POST', route, body)
      if (queued.status !== 202) throw new Error(`${route}: ${queued.status} ${JSON.stringify(queued.body)}`)
      const done = await finished(url, auth, queued.body.data.id)
      seen.push(JSON.stringify(done))
      return done
    }

    const credential = await api('POST', '/cloud-credentials', { name: 'moto', provider: 'aws', credentials: { ...keys, region: REGION } })
    if (credential.status !== 201) throw new Error(`credential: ${JSON.stringify(credential.body)}`)
    const services = {
      rds: { enabled: true, deletionProtection: false, instanceClass: 'db.t4g.micro' },
      sqs: { enabled: true },
      s3: { enabled: true },
    }
    const created = await api('POST', '/environments', {
      name: 'planned',
      globalPrefix: 'acme',
      provider: 'aws',
      region: REGION,
      domain: '',
      services,
      terraformBackend: { bucket: BUCKET, region: REGION },
      cloudCredentialId: credential.body.data.id,
      gitRepository: { url: remote, branch: 'main', deployKey: DEPLOY_KEY },
    })
    if (created.status !== 201) throw new Error(`environment: ${JSON.stringify(created.body)}`)
    const envId = created.body.data.id as string

    // The first push plans everything to create (nothing is at risk), then the branch is applied once.
    const firstPush = await job(`/environments/${envId}/push`, {})
    const work = await mkdtemp(path.join(os.tmpdir(), 'ies-plan-test-'))
    t.teardown(() => rm(work, { recursive: true, force: true }))
    const basic = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
    await run('git', ['-c', `http.extraHeader=${basic}`, 'clone', '-q', '--branch', 'main', git.url('planned'), path.join(work, 'clone')])
    const tree = path.join(work, 'clone', 'terraform')
    const applyStarted = Date.now()
    await initBackend(tree, awsEnv)
    const planned = await tfPlan(tree, awsEnv)
    const targets = [...new Set(planned.changes.map((c) => c.address.replace(/\[[^\]]*\]/g, '')))].filter((a) => a !== NOT_CREATED)
    const applied = await terraform(
      tree,
      ['apply', '-auto-approve', '-input=false', '-no-color', ...targets.map((a) => `-target=${a}`)],
      awsEnv,
    )
    t.comment(`applied ${targets.length} resources in ${((Date.now() - applyStarted) / 1000).toFixed(0)} s`)
    /** Terraform's own plan of the branch's tree, run by hand in the clone (its "Plan:" counts). */
    const byHand = async () => (await tfPlan(tree, awsEnv)).summary
    return { keys, sqs, remote, api, job, envId, firstPush, work, applied, byHand, git }
  })()
  ready.catch(() => {})

  t.test('the first push planned the creation and the apply made it', async (t) => {
    const { firstPush, applied } = await ready
    t.equal(firstPush.status, 'succeeded', JSON.stringify(firstPush.error))
    t.ok(firstPush.result.plan.summary.add > 0, 'the push carries its plan')
    t.same(firstPush.result.plan.dataAtRisk, [], 'creating puts nothing at risk')
    t.equal(applied.code, 0, `the branch applies to moto: ${applied.stderr}`)
  })

  t.test('a plan with no change shows 0 to add, change and destroy', async (t) => {
    const { api, job, envId, byHand } = await ready
    const done = await job(`/environments/${envId}/plan`)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.equal(done.type, 'plan')
    const own = await byHand()
    const { add, change, destroy } = done.result.summary
    t.same({ add, change, remove: destroy }, { add: own?.add, change: own?.change, remove: own?.remove }, "the counts are Terraform's own")
    t.same(withoutNoise(done.result.resources), [], '0 to add, change and destroy but for what moto does not read back')
    t.ok(done.result.summary.noOp > 0, 'the applied resources are there, unchanged')
    const history = await api('GET', `/environments/${envId}/history`)
    t.match(
      history.body.data.find((e: any) => e.jobId === done.id),
      { kind: 'plan', plan: `${add} to add, ${change} to change, ${destroy} to destroy` },
      'the history records the plan with its summary',
    )
  })

  t.test('drift: a visibility timeout changed through the AWS API shows exactly that queue', async (t) => {
    const { sqs, api, job, envId } = await ready
    const before = await job(`/environments/${envId}/drift`)
    t.equal(before.status, 'succeeded', JSON.stringify(before.error))
    t.same(withoutNoise(before.result.resources), [], 'right after the apply: no drift but for what moto does not read back')
    /** Sets the queue's visibility timeout, its policy given again (moto's SetQueueAttributes drops the attributes it is not given). */
    const setVisibility = async (queueUrl: string, seconds: string) => {
      const got = await sqs({ Action: 'GetQueueAttributes', QueueUrl: queueUrl, 'AttributeName.1': 'Policy' })
      const escaped = /<Name>Policy<\/Name>\s*<Value>([^<]*)<\/Value>/.exec(got)?.[1]
      const policy = escaped
        ?.replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&')
      await sqs({
        Action: 'SetQueueAttributes',
        QueueUrl: queueUrl,
        'Attribute.1.Name': 'VisibilityTimeout',
        'Attribute.1.Value': seconds,
        ...(policy && { 'Attribute.2.Name': 'Policy', 'Attribute.2.Value': policy }),
      })
    }
    const queues = await sqs({ Action: 'ListQueues' })
    const queueUrl = [...queues.matchAll(/<QueueUrl>([^<]+)<\/QueueUrl>/g)].map((m) => m[1]!).find((u) => !/dlq/i.test(u))!
    await setVisibility(queueUrl, '99')
    const done = await job(`/environments/${envId}/drift`)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.equal(done.result.kind, 'drift')
    const found = withoutNoise(done.result.resources)
    const drifted = found.map((r: any) => r.address)
    t.same(drifted, ['module.sqs.aws_sqs_queue.this'], `exactly that queue drifted: ${drifted.join(', ')}`)
    t.same(found[0]?.attributes, [{ name: 'visibility_timeout_seconds', before: '30', after: '99' }])
    const env = await api('GET', `/environments/${envId}`)
    t.match(
      env.body.data.drift,
      { jobId: done.id, drifted: done.result.resources.map((r: any) => ({ address: r.address })) },
      'GET /:id shows the last drift check',
    )
    t.ok(Date.parse(env.body.data.drift.checkedAt) > 0, 'and when it ran')
    await setVisibility(queueUrl, '30')
  })

  t.test('a changed RDS instance class is one update in place naming instance_class; two plans at once', async (t) => {
    const { api, job, envId } = await ready
    const put = await api('PUT', `/environments/${envId}`, { services: { rds: { instanceClass: 'db.t4g.medium' } } })
    t.equal(put.status, 200, JSON.stringify(put.body))
    const [a, b] = await Promise.all([job(`/environments/${envId}/plan`), job(`/environments/${envId}/plan`)])
    for (const done of [a, b]) {
      t.equal(done.status, 'succeeded', JSON.stringify(done.error))
      const found = withoutNoise(done.result.resources)
      t.match(
        found,
        [{ address: 'module.rds.aws_db_instance.this', type: 'aws_db_instance', action: 'update', holdsData: true }],
        'one update in place',
      )
      t.equal(found.length, 1, `and nothing else: ${JSON.stringify(found.map((r: any) => [r.address, r.action, r.attributes]))}`)
      t.same(found[0]?.attributes, [{ name: 'instance_class', before: '"db.t4g.micro"', after: '"db.t4g.medium"' }])
      t.same(done.result.dataAtRisk, [], 'an update in place puts no data at risk')
    }
    t.same(done2(a), done2(b), 'both plans say the same')
  })

  t.test('destroying data-holding resources: listed, refused without confirmation, pushed with it', async (t) => {
    const { api, job, envId, git } = await ready
    const put = await api('PUT', `/environments/${envId}`, { services: { sqs: { enabled: false } } })
    t.equal(put.status, 200, JSON.stringify(put.body))
    const dry = await job(`/environments/${envId}/push`, { dryRun: true, plan: true })
    t.equal(dry.status, 'succeeded', JSON.stringify(dry.error))
    const atRisk = dry.result.plan.dataAtRisk as string[]
    t.ok(atRisk.length > 0 && atRisk.every((a) => /aws_sqs_queue/.test(a)), `the queues are at risk: ${atRisk.join(', ')}`)
    for (const address of atRisk)
      t.match(
        dry.result.plan.resources.find((r: any) => r.address === address),
        { action: 'delete', holdsData: true },
      )
    t.ok(dry.result.changes.length > 0, 'the file diff is there beside the plan')

    const head = async () => (await git.git('planned', ['rev-parse', 'main'])).trim()
    const before = await head()
    const refused = await job(`/environments/${envId}/push`, {})
    t.equal(refused.status, 'failed')
    t.equal(refused.error?.code, 'PUSH_WOULD_DESTROY_DATA')
    t.same(refused.error?.details.addresses, atRisk)
    t.equal(await head(), before, 'nothing was pushed')
    const partly = await job(`/environments/${envId}/push`, { confirmDestroy: atRisk.slice(1) })
    t.equal(partly.error?.code, 'PUSH_WOULD_DESTROY_DATA', 'confirming only some of them is not enough')
    const pushed = await job(`/environments/${envId}/push`, { confirmDestroy: atRisk })
    t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
    t.not(await head(), before, 'confirmed: pushed')
  })

  t.test('a refused credential fails with a clear code; the secret is nowhere', async (t) => {
    const { keys, remote, work } = await ready
    // A cloud that checks keys (moto with authentication on) and an app pointed at it.
    const strict = await startTestMoto(t, { authAfterActions: 0 })
    const other = await startTestApp(
      t,
      { PUSH_ALLOWED_HOSTS: '127.0.0.1', AWS_ENDPOINT_URL: strict.endpoint, TERRAFORM_CLI_CONFIG: ensureCliConfig()! },
      { logStream },
    )
    const headers = () => ({ ...other.auth('dev'), 'content-type': 'application/json' })
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${other.url}/api${route}`, {
        method,
        headers: body === undefined ? other.auth('dev') : headers(),
        ...(body !== undefined && { body: JSON.stringify(body) }),
      })
      const text = await res.text()
      seen.push(text)
      return JSON.parse(text) as any
    }
    const wrong = 'wrongSecretKeyForPlanTests0123456789abcd'
    const cred = await call('POST', '/cloud-credentials', {
      name: 'refused',
      provider: 'aws',
      credentials: { accessKeyId: 'AKIAIESREFUSED000001', secretAccessKey: wrong, region: REGION },
    })
    const env = await call('POST', '/environments', {
      name: 'refused',
      globalPrefix: 'acme',
      provider: 'aws',
      region: REGION,
      domain: '',
      services: { sqs: { enabled: true } },
      terraformBackend: { bucket: BUCKET, region: REGION },
      cloudCredentialId: cred.data.id,
      gitRepository: { url: remote, branch: 'refused', deployKey: DEPLOY_KEY },
    })
    // Look into every plan directory while the job runs: no file holds the secret.
    const found: string[] = []
    const queued = await call('POST', `/environments/${env.data.id}/plan`)
    const scan = async () => {
      for (const name of (await readdir(os.tmpdir())).filter((n) => n.startsWith('ies-plan-') && n !== path.basename(work))) {
        for (const file of await walk(path.join(os.tmpdir(), name))) {
          if ((await readFile(file).catch(() => Buffer.alloc(0))).includes(wrong)) found.push(file)
        }
      }
    }
    let scanned = 0
    await eventually(
      async () => {
        await scan()
        scanned++
        return (await call('GET', `/jobs/${queued.data.id}`)).data.status as string
      },
      (status) => status === 'failed' || status === 'succeeded',
      { timeoutMs: 5 * 60_000, intervalMs: 50 },
    )
    const done = await finished(other.url, other.auth, queued.data.id)
    seen.push(JSON.stringify(done))
    t.equal(done.status, 'failed')
    t.equal(done.error?.code, 'CLOUD_CREDENTIAL_REFUSED', JSON.stringify(done.error))
    t.match(done.error?.message, /InvalidAccessKeyId|403/, "Terraform's own words")
    t.ok(scanned > 0)
    t.same(found, [], 'no file of a plan directory holds the secret')
    t.notOk(
      seen.some((x) => x.includes(wrong) || x.includes(keys.secretAccessKey)),
      'no answer holds a secret',
    )
    t.notOk(
      lines.some((l) => l.includes(wrong) || l.includes(keys.secretAccessKey)),
      'no log line holds a secret',
    )
  })
}

/** The job once it has ended, polled with a fresh token each time (a plan outlives one). */
async function finished(base: string, auth: (user: 'dev') => Record<string, string>, id: string): Promise<JobView> {
  const job = await eventually(
    async () => ((await (await fetch(`${base}/api/jobs/${id}`, { headers: auth('dev') })).json()) as { data: JobView }).data,
    (j) => j.status === 'succeeded' || j.status === 'failed',
    { timeoutMs: 10 * 60_000, intervalMs: 250 },
  )
  return job
}

/** A plan's result without what differs between two runs (timings). */
function done2(j: JobView) {
  const { seconds: _s, ...rest } = j.result
  return rest
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await walk(full)))
    else if (entry.isFile() && ((await stat(full).catch(() => null))?.size ?? 0) < 50 * 1024 * 1024) out.push(full)
  }
  return out
}
