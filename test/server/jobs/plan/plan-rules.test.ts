/**
 * The organisation's rules on a real push's plan, against moto with the generated S3 backend: an
 * organisation rule (POLICIES_DIR) reads `input.plan`; a push whose plan it denies fails with
 * POLICY_DENIED naming the rule and the resource address, and nothing reaches the branch; a push
 * whose plan it only warns about is pushed with the warning in the job's result. The environments
 * are new (an empty state): their plan creates every resource, no apply is needed.
 * Under CI=true a missing terraform or provider mirror fails the test; elsewhere it is skipped.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { createStateBucket } from '../../../../scripts/check-templates/moto-stack.ts'
import { terraformMissing } from '../../../../scripts/check-templates/terraform.ts'
import { ensureCliConfig } from '../../../../scripts/terraform/cli-config.ts'
import { startTestApp } from '../../../harness/app.ts'
import { eventually } from '../../../harness/eventually.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { startTestMoto } from '../../../harness/moto.ts'
import type { JobView } from '../../../harness/jobs.ts'

const inCi = !!process.env.CI && process.env.CI !== 'false'
const DEPLOY_KEY = 'iest_cGxhbi1ydWxlcy1kZXBsb3kta2V5LWZvci10ZXN0cw'
const REGION = 'eu-central-1'
const BUCKET = 'ies-plan-rules-state'

// New queues: refused where the environment says so, a warning elsewhere.
const RULE = `package ies.rules.no_new_queues

new_queues contains r.address if {
	some r in input.plan.resources
	r.type == "aws_sqs_queue"
	r.action == "create"
}

deny contains {"field": address, "message": "no new queues here"} if {
	input.environment.labels.queues == "frozen"
	some address in new_queues
}

warn contains {"field": address, "message": "a new queue"} if {
	not input.environment.labels.queues
	some address in new_queues
}
`

const reason = terraformMissing()
if (reason) {
  if (inCi) t.fail(`${reason}: CI must plan against moto`)
  else t.plan(0, `${reason}; skipped outside CI`)
} else {
  t.setTimeout(15 * 60 * 1000)
  t.test('rules on the plan of a push', async (t) => {
    const moto = await startTestMoto(t)
    await createStateBucket(moto.endpoint, { bucket: BUCKET, region: REGION, key: 'unused' } as never)
    const rules = await mkdtemp(path.join(os.tmpdir(), 'ies-plan-rules-'))
    t.teardown(() => rm(rules, { recursive: true, force: true }))
    await writeFile(path.join(rules, 'no_new_queues.rego'), RULE)
    const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
    t.teardown(() => git.stop())
    const remote = await git.createRepo('queues', { 'README.md': '# queues\n' })
    const { url, auth } = await startTestApp(t, {
      PUSH_ALLOWED_HOSTS: '127.0.0.1',
      AWS_ENDPOINT_URL: moto.endpoint,
      TERRAFORM_CLI_CONFIG: ensureCliConfig()!,
      POLICIES_DIR: rules,
    })
    // A fresh token for each request: a plan outlives one.
    const api = async (method: string, route: string, body?: unknown) => {
      const headers = body === undefined ? auth('dev') : { ...auth('dev'), 'content-type': 'application/json' }
      const res = await fetch(`${url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
      return { status: res.status, body: (await res.json()) as any }
    }
    const credential = await api('POST', '/cloud-credentials', {
      name: 'moto',
      provider: 'aws',
      credentials: { accessKeyId: 'AKIAIESPLANRULES0001', secretAccessKey: 'planRulesSecretKeyNotToLeak0123456789abc', region: REGION },
    })
    t.equal(credential.status, 201, 'the credential is stored')
    const pushed = async (name: string, labels: Record<string, string>): Promise<JobView> => {
      const created = await api('POST', '/environments', {
        name,
        globalPrefix: 'acme',
        provider: 'aws',
        region: REGION,
        domain: '',
        labels: { tier: 'development', ...labels },
        services: { sqs: { enabled: true } },
        terraformBackend: { bucket: BUCKET, region: REGION },
        cloudCredentialId: credential.body.data.id,
        gitRepository: { url: remote, branch: name, deployKey: DEPLOY_KEY },
      })
      t.equal(created.status, 201, `${name} created`)
      const queued = await api('POST', `/environments/${created.body.data.id}/push`, {})
      t.equal(queued.status, 202, `${name} push queued`)
      return eventually(
        async () => {
          const res = await api('GET', `/jobs/${queued.body.data.id}`)
          if (res.status !== 200) throw new Error(`GET job: ${res.status} ${JSON.stringify(res.body)}`)
          return res.body.data as JobView
        },
        (j) => j.status === 'succeeded' || j.status === 'failed',
        { timeoutMs: 10 * 60_000, intervalMs: 250 },
      )
    }
    const branch = async (name: string) => (await git.git('queues', ['rev-parse', name]).catch(() => '')).trim()

    const refused = await pushed('frozen', { queues: 'frozen' })
    t.equal(refused.status, 'failed')
    t.match(refused.error, {
      code: 'POLICY_DENIED',
      message: /no_new_queues \(module\.sqs[^)]*aws_sqs_queue\.[^)]+\): no new queues here/,
      details: { violations: [{ rule: 'no_new_queues', field: /^module\.sqs.*aws_sqs_queue\./ }] },
    })
    t.equal(await branch('frozen'), '', 'nothing reached the branch')

    const warned = await pushed('open', {})
    t.equal(warned.status, 'succeeded', JSON.stringify(warned.error ?? null))
    t.match(warned.result.warnings, [/^rule no_new_queues \(module\.sqs.*aws_sqs_queue\..*\): a new queue$/])
    t.equal(await branch('open'), warned.result.commit, 'the push with a warning went through')
  })
}
