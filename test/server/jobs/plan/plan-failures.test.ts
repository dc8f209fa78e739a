// Plans that cannot run, without Terraform or a cloud (fast: no moto, no terraform process runs):
//   - a plan and a drift check whose Terraform cannot be started fail with TERRAFORM_UNAVAILABLE, and
//     are in the environment's history as `plan` / `drift` entries carrying the error's code and
//     message (and no secret), before the job is seen to have failed;
//   - a push whose plan cannot be made goes through, its result warning that it was not planned.
// The plans that run (against moto) are in plan.test.ts.
import t from 'tap'
import { startTestApp } from '../../../harness/app.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { createEnvironment, recorder, waitForJob } from '../../../harness/jobs.ts'

const DEPLOY_KEY = 'iest_cGxhbi1mYWlsdXJlcy1kZXBsb3kta2V5LWZvcg'
const SECRET = 'planFailuresSecretKeyThatMustNotLeak0001'
const { lines, logStream, seen } = recorder()

const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
t.teardown(() => git.stop())
const remote = await git.createRepo('failing', { 'README.md': '# failing\n' })
const app = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TERRAFORM_BIN: '/nonexistent/terraform' }, { logStream })
const dev = () => ({ ...app.auth('dev'), 'content-type': 'application/json' })
const api = async (method: string, route: string, body?: unknown) => {
  const res = await fetch(`${app.url}/api${route}`, {
    method,
    headers: body === undefined ? app.auth('dev') : dev(),
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  seen.push(text)
  return { status: res.status, body: JSON.parse(text) as any }
}
const job = async (route: string, body?: unknown) => {
  const queued = await api('POST', route, body)
  if (queued.status !== 202) throw new Error(`${route}: ${queued.status} ${JSON.stringify(queued.body)}`)
  const done = await waitForJob(app.url, app.auth('dev'), queued.body.data.id, 120_000, 50)
  seen.push(JSON.stringify(done))
  return done
}
const credential = await api('POST', '/cloud-credentials', {
  name: 'failing',
  provider: 'aws',
  credentials: { accessKeyId: 'AKIAIESPLANFAIL00001', secretAccessKey: SECRET, region: 'eu-central-1' },
})
const base = {
  globalPrefix: 'acme',
  provider: 'aws',
  region: 'eu-central-1',
  domain: '',
  services: { sqs: { enabled: true } },
  cloudCredentialId: credential.body.data.id,
}
const planned = await createEnvironment(app, {
  ...base,
  name: 'failing-plan',
  terraformBackend: { bucket: 'ies-plan-failures-state', region: 'eu-central-1' },
  gitRepository: { url: remote, branch: 'plan', deployKey: DEPLOY_KEY },
})
/** The environment's history entry of a job. */
const entryOf = async (envId: string, jobId: string) =>
  (await api('GET', `/environments/${envId}/history`)).body.data.find(
    (e: any) => e.jobId === jobId && (e.kind === 'plan' || e.kind === 'drift'),
  )

t.test('failed plans and drift checks are in the history with their error code', async (t) => {
  const plan = await job(`/environments/${planned.id}/plan`)
  t.equal(plan.status, 'failed')
  t.equal(plan.error?.code, 'TERRAFORM_UNAVAILABLE', JSON.stringify(plan.error))
  t.match(await entryOf(planned.id, plan.id), { kind: 'plan', error: { code: 'TERRAFORM_UNAVAILABLE', message: /TERRAFORM_BIN/ } })
  t.notOk((await entryOf(planned.id, plan.id)).plan, 'no summary: there is none')

  const drift = await job(`/environments/${planned.id}/drift`)
  t.equal(drift.error?.code, 'TERRAFORM_UNAVAILABLE', JSON.stringify(drift.error))
  t.match(await entryOf(planned.id, drift.id), { kind: 'drift', error: { code: 'TERRAFORM_UNAVAILABLE', message: /TERRAFORM_BIN/ } })

  // A push whose plan cannot be made goes through, with a warning naming the plan's error code.
  const pushed = await job(`/environments/${planned.id}/push`, {})
  t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
  t.match(pushed.result.warnings, [/not planned.*TERRAFORM_UNAVAILABLE/], 'the push says it was not planned, and why')
  t.notOk(pushed.result.plan, 'and carries no plan')
  t.same(
    ((await api('GET', `/environments/${planned.id}/history`)).body.data as any[]).filter(
      (e) => e.jobId === pushed.id && e.kind === 'plan',
    ),
    [],
    "a push's plan is not a plan entry of the history",
  )

  t.notOk(
    seen.some((x) => x.includes(SECRET) || x.includes(DEPLOY_KEY)),
    'no answer holds a secret',
  )
  t.notOk(
    lines.some((l) => l.includes(SECRET) || l.includes(DEPLOY_KEY)),
    'no log line holds a secret',
  )
})
