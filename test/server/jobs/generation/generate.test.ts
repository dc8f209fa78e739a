// Generation jobs end to end: queued at once, the transform the processor received, each format and
// option's archive content, the synchronous answer, failures with findings, download states and ownership.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { startTestApp } from '../../../harness/app.ts'
import { createEnvironment, environmentBody, unzip, waitForJob } from '../../../harness/jobs.ts'

const DEPLOY_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ==\n-----END OPENSSH PRIVATE KEY-----\n'

t.test('generation', async (t) => {
  const { app, url, auth } = await startTestApp(t)
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const other = { ...auth('other'), 'content-type': 'application/json' }

  const created = await fetch(`${url}/api/environments`, {
    method: 'POST',
    headers: dev,
    body: JSON.stringify(
      environmentBody({
        domain: undefined,
        terraformBackend: { bucket: 'acme-tf-state', region: 'eu-central-1', key: 'ignored/by/transform.tfstate', useLockfile: false },
        gitRepository: { url: 'https://git.example.com/acme/shop.git', branch: 'main', branches: ['main', 'dev'], deployKey: DEPLOY_KEY },
      }),
    ),
  })
  t.equal(created.status, 201, 'environment created')
  const env = ((await created.json()) as any).data
  const generateUrl = `${url}/api/environments/${env.id}/generate`
  const post = (body: unknown, headers = dev, query = '') =>
    fetch(generateUrl + query, { method: 'POST', headers, body: JSON.stringify(body) })

  await t.test('202 with the queued job; the transform reaches the processor', async (t) => {
    const res = await post({ format: 'terraform', options: { includeBackend: true } })
    t.equal(res.status, 202)
    const job = ((await res.json()) as any).data
    t.match(job, { type: 'generate', status: 'queued', environmentId: env.id, startedAt: null, finishedAt: null })
    const done = await waitForJob(url, dev, job.id)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.ok(done.startedAt && done.finishedAt)
    t.match(done.result, {
      format: 'terraform',
      templatesCommit: String,
      fileCount: Number,
      archive: { filename: /^shop-prod-terraform-[0-9a-f]{7}\.zip$/ },
    })

    const record = await app.jobs.store.byId(job.id)
    t.same(record?.processorInput, {
      name: 'shop-prod',
      globalPrefix: 'acme',
      provider: 'aws',
      region: 'eu-central-1',
      domain: '',
      services: { vpc: { enabled: true }, eks: { enabled: true } },
      terraformBackend: { bucket: 'acme-tf-state', region: 'eu-central-1', key: `env/${env.id}/aws.tfstate`, useLockfile: true },
      gitRepository: { url: 'https://git.example.com/acme/shop.git', branch: 'main', branches: ['main', 'dev'] },
    })

    const download = await fetch(`${url}/api/jobs/${job.id}/download`, { headers: auth('dev') })
    t.equal(download.status, 200)
    t.equal(download.headers.get('content-type'), 'application/zip')
    t.equal(download.headers.get('content-disposition'), `attachment; filename="${done.result.archive.filename}"`)
    const zip = Buffer.from(await download.arrayBuffer())
    t.notOk(zip.includes('PRIVATE KEY'), 'no deploy key inside the archive')
    const files = await unzip(zip)
    const names = [...files.keys()]
    t.same(names, [...names].sort(), 'entries in path order')
    t.ok(files.has('terraform/main.tf') && files.has('.github/workflows/terraform.yml'))
    t.notOk(
      names.some((n) => n.startsWith('charts/') || n.startsWith('gitops/')),
      'no charts or gitops without the options',
    )
    const backend = files.get('terraform/backend.tf') ?? ''
    t.match(backend, `key          = "env/${env.id}/aws.tfstate"`)
    t.match(backend, 'use_lockfile = true')
    t.match(backend, 'bucket       = "acme-tf-state"')
    t.notMatch(backend, 'dynamodb')
    const tfvars = files.get('terraform/terraform.tfvars') ?? ''
    t.match(tfvars, 'name = "shop-prod"')
    t.match(tfvars, 'domain = ""')
    t.match(tfvars, 'region = "eu-central-1"')
    t.match(tfvars, /^# eks_node_capacity|eks_kubernetes_version/m)

    t.equal((await fetch(`${url}/api/jobs/${job.id}`, { headers: auth('other') })).status, 404, 'another user gets 404 for the job')
    t.equal((await fetch(`${url}/api/jobs/${job.id}/download`, { headers: auth('other') })).status, 404, 'and for its download')
  })

  await t.test('formats and options select the archive content', async (t) => {
    const cases = [
      {
        format: 'terraform',
        options: {},
        has: ['terraform/main.tf', '.github/workflows/terraform.yml'],
        not: ['terraform/backend.tf', 'charts/', 'gitops/'],
      },
      {
        format: 'terraform',
        options: { includeChart: true, includeGitops: true },
        has: ['terraform/main.tf', 'charts/headlamp/values.yaml', 'gitops/headlamp.yaml'],
        not: ['terraform/backend.tf'],
      },
      {
        format: 'helm',
        options: { includeBackend: true },
        has: ['charts/argo-cd/values.yaml'],
        not: ['terraform/', 'gitops/', '.github/'],
      },
      { format: 'helm', options: { includeGitops: true }, has: ['charts/argo-cd/values.yaml', 'gitops/argo-cd.yaml'], not: ['terraform/'] },
      {
        format: 'argocd',
        options: {},
        has: ['gitops/kube-prometheus-stack.yaml', 'charts/kube-prometheus-stack/values.yaml'],
        not: ['terraform/', '.github/'],
      },
    ]
    for (const c of cases) {
      const job = ((await (await post({ format: c.format, options: c.options })).json()) as any).data
      const done = await waitForJob(url, dev, job.id)
      t.equal(done.status, 'succeeded', `${c.format} ${JSON.stringify(c.options)}`)
      const files = await unzip(
        Buffer.from(await (await fetch(`${url}/api/jobs/${job.id}/download`, { headers: auth('dev') })).arrayBuffer()),
      )
      const names = [...files.keys()]
      for (const want of c.has) t.ok(names.includes(want), `${c.format} ${JSON.stringify(c.options)} has ${want}`)
      for (const unwanted of c.not)
        t.notOk(
          names.some((n) => n.startsWith(unwanted)),
          `${c.format} ${JSON.stringify(c.options)} has no ${unwanted}`,
        )
    }
  })

  await t.test('?wait=true answers with the files', async (t) => {
    const res = await post({ format: 'helm', options: {} }, dev, '?wait=true')
    t.equal(res.status, 200)
    const { data } = (await res.json()) as any
    t.ok(data.jobId)
    t.same(Object.keys(data.files), ['.ies/generation.json'], 'helm format: no other files but the generation record')
    t.match(data.helm['charts/headlamp/values.yaml'], '# @param domain')
    const res2 = await post({ format: 'terraform', options: { includeChart: true, includeBackend: true } }, dev, '?wait=true')
    const body2 = ((await res2.json()) as any).data
    t.ok(body2.files['terraform/backend.tf'])
    t.ok(body2.helm['charts/argo-cd/values.yaml'])
    t.notOk(Object.keys(body2.files).some((f) => f.startsWith('charts/')))
  })

  await t.test('validation and ownership of the request', async (t) => {
    t.equal((await post({ format: 'pulumi', options: {} })).status, 400)
    t.equal((await post({ format: 'terraform', options: {} }, other)).status, 404, 'another user cannot generate')
    const missing = await fetch(`${url}/api/environments/00000000-0000-4000-8000-000000000000/generate`, {
      method: 'POST',
      headers: dev,
      body: JSON.stringify({ format: 'terraform' }),
    })
    t.equal(missing.status, 404)
    t.equal((await fetch(`${url}/api/jobs/nope`, { headers: auth('dev') })).status, 404)
  })
})

t.test('a refused generation fails with the findings; its download answers 409', async (t) => {
  // A templates tree (TEMPLATES_DIR) whose @param sits on a multi-line value: the processor refuses the file.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-broken-templates-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await mkdir(path.join(dir, 'terraform'), { recursive: true })
  await writeFile(path.join(dir, 'terraform/main.tf'), 'locals {\n  # @param name\n  name = <<EOT\nx\nEOT\n}\n')
  const { url, auth } = await startTestApp(t, { TEMPLATES_DIR: dir })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const env = await createEnvironment({ url, auth })
  const job = (
    (await (
      await fetch(`${url}/api/environments/${env.id}/generate`, {
        method: 'POST',
        headers: dev,
        body: JSON.stringify({ format: 'terraform' }),
      })
    ).json()) as any
  ).data
  const early = await fetch(`${url}/api/jobs/${job.id}/download`, { headers: auth('dev') })
  t.equal(early.status, 409, 'download of an unfinished (or failed) job: 409')
  const done = await waitForJob(url, dev, job.id)
  t.equal(done.status, 'failed')
  t.equal(done.error?.code, 'GENERATION_FAILED')
  t.ok(Array.isArray(done.error?.details) && done.error!.details.length > 0, 'findings in error.details')
  t.match(done.error?.details[0], { file: 'terraform/main.tf', line: 3, code: 'MULTILINE_VALUE', message: String })
  const late = await fetch(`${url}/api/jobs/${job.id}/download`, { headers: auth('dev') })
  t.equal(late.status, 409, 'download of a failed job: 409')
  t.equal(((await late.json()) as any).error.code, 'CONFLICT')
  const sync = await fetch(`${url}/api/environments/${env.id}/generate?wait=true`, {
    method: 'POST',
    headers: dev,
    body: JSON.stringify({ format: 'terraform' }),
  })
  t.equal(sync.status, 422, 'the synchronous form answers 422 with the findings')
  t.match(((await sync.json()) as any).error, { code: 'GENERATION_FAILED', details: [{ code: 'MULTILINE_VALUE' }] })
})
