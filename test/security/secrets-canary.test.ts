// Secrets canary: credentials of every provider and a deploy key hold unique canary strings; every
// operation of the OpenAPI document is exercised (the change history and its export last), credentials are checked against hostile upstreams
// that echo what they are sent, a generation and a push (one succeeding, one failing) run. Then every
// response body, every log line (trace level, captured from pino), every raw database document,
// every generated file and pushed commit, and every job error is scanned: zero hits. Visible canaries
// (an environment name, a probe log line) prove that each channel is really scanned.
import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { startGitServer } from '../harness/git-server.ts'
import { environmentBody, unzip, waitForJob } from '../harness/jobs.ts'
import { Canaries, CanaryScan } from './canary.ts'
import { refusingEndpoint } from './loopback.ts'
import { operationsOf } from './openapi.ts'
import { allDocuments } from './snapshot.ts'
import { logLines } from '../harness/log-lines.ts'
import { eventually } from '../harness/eventually.ts'

const pem = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`

t.test('secrets never leave: responses, logs, database, archives, pushes, job errors', async (t) => {
  const secrets = new Canaries()
  const visible = new Canaries()
  const { lines, logStream } = logLines()

  // Pushes authenticate over HTTPS with a token (an SSH key is refused before connecting).
  const deployKey = secrets.make('deploykey')
  const git = await startGitServer({ username: 'x-access-token', password: deployKey })
  t.teardown(() => git.stop())
  const echo = await refusingEndpoint({ echo: true })
  t.teardown(() => echo.close())
  const { app, url, auth } = await startTestApp(
    t,
    {
      LOG_LEVEL: 'trace',
      PUSH_ALLOWED_HOSTS: '127.0.0.1',
      AWS_ENDPOINT_URL: echo.url,
      AZURE_AUTHORITY_HOST: echo.url,
      GCP_TOKEN_URL: `${echo.url}/token`,
      CREDENTIAL_VALIDATE_TIMEOUT_MS: '3000',
    },
    { logStream },
  )
  const bodies = new CanaryScan(secrets)
  const shown = new CanaryScan(visible)
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...auth('dev'), ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const buffer = Buffer.from(await res.arrayBuffer())
    const where = `${method} ${path} -> ${res.status}`
    bodies.add(where, buffer)
    bodies.add(`${where} headers`, JSON.stringify([...res.headers]))
    shown.add(where, buffer)
    return { status: res.status, buffer, json: () => JSON.parse(buffer.toString('utf8')) }
  }

  // Credentials of every provider, each secret a canary.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const gcpKey = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
  secrets.plant('gcp private key', gcpKey.split('\n')[5])
  const aws = (
    await call('POST', '/api/cloud-credentials', {
      name: 'aws-main',
      provider: 'aws',
      credentials: {
        accessKeyId: secrets.make('accesskeyid', { prefix: 'AKIA', case: 'upper' }),
        secretAccessKey: secrets.make('awssecret'),
        sessionToken: secrets.make('sessiontoken'),
        region: 'eu-central-1',
      },
    })
  ).json().data
  const azure = (
    await call('POST', '/api/cloud-credentials', {
      name: 'azure-main',
      provider: 'azure',
      credentials: {
        subscriptionId: '0b6e2f1a-1111-4222-8333-444455556666',
        tenantId: 'contoso.onmicrosoft.com',
        clientId: '1c2d3e4f-1111-4222-8333-444455556666',
        clientSecret: secrets.make('azuresecret'),
      },
    })
  ).json().data
  const gcp = (
    await call('POST', '/api/cloud-credentials', {
      name: 'gcp-main',
      provider: 'gcp',
      credentials: {
        projectId: 'acme-project',
        serviceAccountKey: {
          type: 'service_account',
          project_id: 'acme-project',
          private_key: gcpKey,
          client_email: 'ies@acme-project.iam.gserviceaccount.com',
          private_key_id: secrets.make('privatekeyid'),
        },
      },
    })
  ).json().data
  t.ok(aws?.id && azure?.id && gcp?.id, 'credentials of aws, azure and gcp created')

  const envName = visible.make('envname', { prefix: 'v', case: 'lower', maxLength: 40 })
  const env = (
    await call(
      'POST',
      '/api/environments',
      environmentBody({
        name: envName,
        cloudCredentialId: aws.id,
        gitRepository: {
          url: 'https://git.example.com/acme/shop.git',
          branch: 'main',
          deployKey: pem('OPENSSH PRIVATE KEY', secrets.make('deploykey2')),
        },
      }),
    )
  ).json().data
  t.ok(env?.id, 'environment with a deploy key created')

  // Pushes to the loopback Git server (http, allow-listed) use an environment stored directly, as the API takes https:// only.
  const devId = env && (await app.mongo.db.collection('environments').findOne({ _id: env.id }))?.userId
  const repo = app.environments
  const pushEnv = await repo.create(devId, {
    ...environmentBody({ name: 'push-ok' }),
    gitRepository: { url: await git.createRepo('ok', { 'README.md': 'x\n' }), branch: 'main', deployKey },
  } as never)
  const wrongKey = secrets.make('wrongkey')
  const failEnv = await repo.create(devId, {
    ...environmentBody({ name: 'push-refused' }),
    gitRepository: { url: git.url('ok'), branch: 'main', deployKey: wrongKey },
  } as never)

  // Every operation of the document, with inputs that reach its handler.
  const doc = (await call('GET', '/api/openapi.json')).json()
  const asAdmin = () => ({ authorization: auth('admin').authorization })
  const plan: Record<string, () => Promise<unknown>> = {
    'GET /health': () => call('GET', '/health'),
    'GET /api/users/me': () => call('GET', '/api/users/me'),
    'PUT /api/users/me': () => call('PUT', '/api/users/me', { preferences: { theme: 'dark' } }),
    'GET /api/users/me/preferences': () => call('GET', '/api/users/me/preferences'),
    'PUT /api/users/me/preferences': () => call('PUT', '/api/users/me/preferences', { defaultProvider: 'aws' }),
    'GET /api/users/': () => call('GET', '/api/users/', undefined, { authorization: `Bearer ${auth('admin').authorization.slice(7)}` }),
    'GET /api/cloud-credentials/': () => call('GET', '/api/cloud-credentials/'),
    'POST /api/cloud-credentials/': () =>
      call('POST', '/api/cloud-credentials/', {
        name: 'bad',
        provider: 'aws',
        credentials: { accessKeyId: 'lower', secretAccessKey: secrets.value('awssecret') },
      }),
    'GET /api/cloud-credentials/{id}': async () => {
      for (const c of [aws, azure, gcp]) await call('GET', `/api/cloud-credentials/${c.id}`)
    },
    'PUT /api/cloud-credentials/{id}': () =>
      call('PUT', `/api/cloud-credentials/${azure.id}`, {
        name: 'azure-renamed',
        credentials: { subscriptionId: 'not-a-guid', tenantId: 'x', clientId: 'y', clientSecret: secrets.value('azuresecret') },
      }),
    'DELETE /api/cloud-credentials/{id}': () => call('DELETE', `/api/cloud-credentials/${aws.id}`), // in use: 400 CREDENTIAL_IN_USE
    'PUT /api/cloud-credentials/{id}/default': () => call('PUT', `/api/cloud-credentials/${aws.id}/default`, {}),
    'POST /api/cloud-credentials/{id}/validate': async () => {
      for (const c of [aws, azure, gcp]) await call('POST', `/api/cloud-credentials/${c.id}/validate`)
    },
    'GET /api/environments/': () => call('GET', '/api/environments/'),
    'POST /api/environments/': () =>
      call(
        'POST',
        '/api/environments/',
        environmentBody({
          name: 'bad-key',
          gitRepository: { url: 'https://git.example.com/a.git', deployKey: `not a key ${secrets.value('deploykey2')}` },
        }),
      ),
    'GET /api/environments/{id}': () => call('GET', `/api/environments/${env.id}`),
    'PUT /api/environments/{id}': () =>
      call('PUT', `/api/environments/${env.id}`, { domain: 'shop.example.org', gitRepository: { branch: 'dev' } }),
    'DELETE /api/environments/{id}': async () => {
      const doomed = (
        await call(
          'POST',
          '/api/environments',
          environmentBody({
            name: 'doomed',
            gitRepository: { url: 'https://git.example.com/d.git', deployKey: pem('OPENSSH PRIVATE KEY', secrets.value('deploykey')) },
          }),
        )
      ).json().data
      await call('DELETE', `/api/environments/${doomed.id}`)
    },
    'POST /api/environments/{id}/generate': async () => {
      const sync = await call('POST', `/api/environments/${env.id}/generate?wait=true`, {
        format: 'terraform',
        options: { includeBackend: true, includeChart: true, includeGitops: true },
      })
      t.equal(sync.status, 200, 'synchronous generation answers with the files')
      const queued = (
        await call('POST', `/api/environments/${env.id}/generate`, { format: 'helm', options: { includeChart: true } })
      ).json().data
      await waitForJob(url, auth('dev'), queued.id)
      generated.push(sync.json().data.jobId, queued.id)
    },
    'POST /api/environments/{id}/push': async () => {
      for (const target of [pushEnv, failEnv]) {
        const job = (await call('POST', `/api/environments/${target._id}/push`, {})).json().data
        pushed.push((await waitForJob(url, auth('dev'), job.id)).id)
      }
    },
    // A plan and a drift check of the environment the push targets: answered (409 without a state
    // bucket, or a failed job whose Terraform output is scanned like any job's).
    'POST /api/environments/{id}/plan': async () => {
      const res = (await call('POST', `/api/environments/${pushEnv._id}/plan`)).json()
      if (res.data?.id) await waitForJob(url, auth('dev'), res.data.id)
    },
    'POST /api/environments/{id}/drift': async () => {
      const res = (await call('POST', `/api/environments/${pushEnv._id}/drift`)).json()
      if (res.data?.id) await waitForJob(url, auth('dev'), res.data.id)
    },
    'GET /api/environments/upgrades': () => call('GET', '/api/environments/upgrades'),
    // A draft judged by the organisation's rules, deploy key included: the answer names rules and fields, never values.
    'POST /api/policies/evaluate': () =>
      call('POST', '/api/policies/evaluate', {
        environment: {
          name: 'canary-draft',
          provider: 'aws',
          region: 'eu-west-1',
          labels: { tier: 'production' },
          gitRepository: { url: 'https://git.example.com/p.git', deployKey: pem('OPENSSH PRIVATE KEY', secrets.value('deploykey')) },
        },
      }),
    // Dry runs of both push targets: their results (diffs) and errors are scanned like any job's.
    'POST /api/environments/upgrade': async () => {
      const started = (await call('POST', '/api/environments/upgrade', { ids: [pushEnv._id, failEnv._id], dryRun: true })).json().data
      for (const job of started.jobs) await call('GET', `/api/jobs/${(await waitForJob(url, auth('dev'), job.jobId)).id}`)
      rolloutId = started.rolloutId
    },
    // The rollout of that upgrade: its environments' outcomes and reasons (job errors) are scanned too.
    'GET /api/environments/upgrade/{id}': () => call('GET', `/api/environments/upgrade/${rolloutId}`),
    'GET /api/jobs/{jobId}': async () => {
      for (const id of [...generated, ...pushed]) await call('GET', `/api/jobs/${id}`)
    },
    'GET /api/jobs/': () => call('GET', `/api/jobs?ids=${[...generated, ...pushed].join(',')}`),
    'GET /api/jobs/{jobId}/files': async () => {
      for (const id of generated) await call('GET', `/api/jobs/${id}/files`)
    },
    'GET /api/environments/{id}/jobs': () => call('GET', `/api/environments/${env.id}/jobs?limit=100`),
    'GET /api/jobs/{jobId}/download': async () => {
      for (const id of generated) {
        const res = await call('GET', `/api/jobs/${id}/download`)
        t.equal(res.status, 200, 'archive downloaded')
        for (const [file, content] of await unzip(res.buffer)) {
          bodies.add(`archive of job ${id}: ${file}`, content)
          shown.add(`archive of job ${id}: ${file}`, content)
        }
      }
    },
    'POST /api/ai/chat': () =>
      call('POST', '/api/ai/chat', {
        messages: [{ role: 'user', content: 'What is missing for a working stack?' }],
        environmentId: env.id,
        draft: { name: envName, services: { eks: { enabled: true } }, credentials: { secretAccessKey: secrets.value('awssecret') } },
      }),
    'GET /api/catalog/': () => call('GET', '/api/catalog/'),
    // Teams hold no secret; each operation on a team of its own (the admin's).
    'GET /api/teams/': () => call('GET', '/api/teams/'),
    'POST /api/teams/': () => call('POST', '/api/teams/', { name: 'canary-made' }, asAdmin()),
    'PUT /api/teams/{team}': async () => {
      await call('POST', '/api/teams/', { name: 'canary-renamed' }, asAdmin())
      return call('PUT', '/api/teams/canary-renamed', { name: 'canary-renamed-2' }, asAdmin())
    },
    'DELETE /api/teams/{team}': async () => {
      await call('POST', '/api/teams/', { name: 'canary-deleted' }, asAdmin())
      return call('DELETE', '/api/teams/canary-deleted', undefined, asAdmin())
    },
    'PUT /api/teams/{team}/members/{kind}/{name}': async () => {
      await call('POST', '/api/teams/', { name: 'canary-members' }, asAdmin())
      return call('PUT', '/api/teams/canary-members/members/user/dev', { role: 'viewer' }, asAdmin())
    },
    'GET /api/teams/{team}/members': () => call('GET', '/api/teams/canary-members/members', undefined, asAdmin()),
    'PUT /api/teams/{team}/settings': () =>
      call('PUT', '/api/teams/canary-members/settings', { requireProductionApproval: false }, asAdmin()),
    // The approvals desk: the list, and decisions on a push that awaits none (refused; the answers are scanned).
    'GET /api/approvals/': () => call('GET', '/api/approvals/'),
    'POST /api/approvals/{jobId}/approve': () => call('POST', `/api/approvals/${pushed[0]}/approve`, {}),
    'POST /api/approvals/{jobId}/reject': () => call('POST', `/api/approvals/${pushed[0]}/reject`, { reason: 'canary' }),
    'DELETE /api/teams/{team}/members/{kind}/{name}': () =>
      call('DELETE', '/api/teams/canary-members/members/user/dev', undefined, asAdmin()),
    // S3 answers through the echoing upstream: whatever AWS says back must not carry the keys.
    'POST /api/environments/terraform-backend/create': () =>
      call('POST', '/api/environments/terraform-backend/create', {
        cloudCredentialId: aws.id,
        bucket: 'acme-tf-state',
        environmentId: env.id,
      }),
    // The change history: every entry of every environment, one at a time, a restore, and the export.
    'GET /api/environments/{id}/history': async () => {
      for (const id of [env.id, pushEnv._id, failEnv._id]) await call('GET', `/api/environments/${id}/history?limit=100`)
    },
    'GET /api/environments/{id}/history/{entryId}': async () => {
      for (const id of [env.id, pushEnv._id, failEnv._id]) {
        const entries = (await call('GET', `/api/environments/${id}/history?limit=100`)).json().data
        for (const entry of entries) await call('GET', `/api/environments/${id}/history/${entry.id}`)
      }
    },
    'POST /api/environments/{id}/history/{entryId}/restore': () => call('POST', `/api/environments/${env.id}/history/1/restore`),
    'GET /api/admin/history': () => call('GET', '/api/admin/history', undefined, { authorization: auth('admin').authorization }),
  }
  const generated: string[] = []
  const pushed: string[] = []
  let rolloutId = ''
  const operations = operationsOf(doc).map((op) => op.name)
  t.same(
    operations.filter((name) => !plan[name]),
    [],
    'every operation of the document is exercised',
  )
  // Order matters only for jobs: generate, push and upgrade before the job and rollout routes.
  // The history last: it records what the others did.
  const rank = (name: string) =>
    Number(name.includes('/api/jobs/') || name.includes('/upgrade/{id}')) + 2 * Number(name.includes('history'))
  const order = [...operations].sort((a, b) => rank(a) - rank(b))
  for (const name of order) if (plan[name]) await plan[name]()

  const jobs = await Promise.all(pushed.map(async (id) => (await call('GET', `/api/jobs/${id}`)).json().data))
  t.match(
    jobs.map((j) => j.status),
    ['succeeded', 'failed'],
    'one push succeeded, one failed with an error',
  )
  t.ok(jobs[1]?.error?.message, 'the failed push has an error message (scanned with the body)')

  // The pushed commit, every file and message of the repository.
  const history = await git.git('ok', ['log', '-p', '--all', '--format=%H %an %ae %s%n%b'])
  bodies.add('pushed repository history', history)
  shown.add('pushed repository history', history)

  // Every raw database document (GridFS chunks included).
  for (const [collection, text] of await allDocuments(app.mongo.db)) {
    bodies.add(`database ${collection}`, text)
    shown.add(`database ${collection}`, text)
  }

  // Every log line; a probe proves they are captured.
  app.log.info({ probe: visible.make('logprobe') }, 'canary probe')
  await eventually(async () => lines.some((line) => line.includes('canary probe')), Boolean)
  lines.forEach((line, i) => {
    bodies.add(`log line ${i}`, line)
    shown.add(`log line ${i}`, line)
  })

  // The scans can see: the visible canaries show up in every channel.
  for (const [canary, channel] of [
    ['envname', 'GET /api/environments/'],
    ['envname', 'archive of job'],
    ['envname', 'database environments'],
    ['logprobe', 'log line'],
  ]) {
    t.ok(
      shown.hits.some((h) => h.canary === canary && h.where.startsWith(channel)),
      `the scanner finds the visible canary ${canary} in ${channel}`,
    )
  }
  t.ok(lines.length > 50, `log lines captured at trace level (${lines.length})`)
  t.ok(
    echo.received.some((r) => r.includes(secrets.value('azuresecret'))),
    'the hostile upstream did receive a secret (and echoed it back)',
  )
  t.ok(history.includes('terraform/main.tf'), 'the pushed repository was scanned')

  t.equal(bodies.hits.length, 0, `no secret canary anywhere (${bodies.scanned.length} places scanned):\n${bodies.report()}`)
})
