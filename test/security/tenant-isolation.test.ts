// Tenant isolation: for every operation of the OpenAPI document that takes an id (path parameter),
// user `other` sends user `dev`'s ids (environment, credential, generation job, push job, a job of dev's
// team's environment queued under the team as the drift schedule queues it, team, rollout): 404, a body
// no different from the 404 for an id that does not exist, nothing of dev's in it, and dev's records
// unchanged. Ids in bodies (a credential for an environment, a generation job for a push, an
// environment for the assistant) are refused the same way. A new route with an id fails this test
// until it is added to the matrix below. A batch of those job ids (`GET /api/jobs?ids=`, also waiting)
// answers none of them.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startTestApp } from '../harness/app.ts'
import { eventually } from '../harness/eventually.ts'
import { environmentBody, waitForJob } from '../harness/jobs.ts'
import { Canaries, CanaryScan } from './canary.ts'
import { refusingEndpoint } from './loopback.ts'
import { operationsOf, type Operation } from './openapi.ts'
import { ownedSnapshot } from './snapshot.ts'

type IdKind = 'environment' | 'credential' | 'generateJob' | 'pushJob' | 'teamJob' | 'team' | 'rollout'

/** Operations only an admin may call (test/plugins/teams/isolation.test.ts covers them): other gets 403 whatever the id. */
const ADMIN_ONLY = new Set([
  'PUT /api/teams/{team}',
  'DELETE /api/teams/{team}',
  'PUT /api/teams/{team}/members/{kind}/{name}',
  'DELETE /api/teams/{team}/members/{kind}/{name}',
  'PUT /api/teams/{team}/settings',
])

/** Every operation with a path parameter: which of dev's ids it takes, and a body valid for it. */
const MATRIX: Record<string, { ids: IdKind[]; body?: unknown }> = {
  'GET /api/environments/{id}': { ids: ['environment'] },
  'PUT /api/environments/{id}': { ids: ['environment'], body: { domain: 'taken.example.com', services: { vpc: { enabled: false } } } },
  'DELETE /api/environments/{id}': { ids: ['environment'] },
  'POST /api/environments/{id}/generate': { ids: ['environment'], body: { format: 'terraform', options: { includeBackend: true } } },
  'POST /api/environments/{id}/push': { ids: ['environment'], body: {} },
  'POST /api/environments/{id}/plan': { ids: ['environment'] },
  'POST /api/environments/{id}/drift': { ids: ['environment'] },
  'GET /api/cloud-credentials/{id}': { ids: ['credential'] },
  'PUT /api/cloud-credentials/{id}': { ids: ['credential'], body: { name: 'renamed-by-other' } },
  'DELETE /api/cloud-credentials/{id}': { ids: ['credential'] },
  'PUT /api/cloud-credentials/{id}/default': { ids: ['credential'], body: {} },
  'POST /api/cloud-credentials/{id}/validate': { ids: ['credential'] },
  'GET /api/jobs/{jobId}': { ids: ['generateJob', 'pushJob', 'teamJob'] },
  'GET /api/jobs/{jobId}/download': { ids: ['generateJob', 'pushJob'] },
  'GET /api/jobs/{jobId}/files': { ids: ['generateJob', 'pushJob'] },
  'GET /api/environments/{id}/jobs': { ids: ['environment'] },
  'GET /api/environments/{id}/history': { ids: ['environment'] },
  'GET /api/environments/{id}/history/{entryId}': { ids: ['environment'] },
  'POST /api/environments/{id}/history/{entryId}/restore': { ids: ['environment'] },
  'GET /api/teams/{team}/members': { ids: ['team'] },
  'GET /api/environments/upgrade/{id}': { ids: ['rollout'] },
  'POST /api/approvals/{jobId}/approve': { ids: ['pushJob'] },
  'POST /api/approvals/{jobId}/reject': { ids: ['pushJob'], body: { reason: 'by other' } },
}

/** The path with dev's id as its first parameter; a history entry number (dev's first entry) for the second. */
const pathWith = (path: string, id: string) => path.replace(/\{[^}]+\}/, id).replace('{entryId}', '1')

const DEPLOY_KEY = (secret: string) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n-----END OPENSSH PRIVATE KEY-----\n`

/** A 404 body without what legitimately differs between two requests (request id, time, the id asked for). */
function shapeOf(body: string, id: string) {
  const parsed = JSON.parse(body)
  delete parsed.meta
  return JSON.stringify(parsed).split(id).join('<id>')
}

t.test('tenant isolation', async (t) => {
  const upstream = await refusingEndpoint()
  t.teardown(() => upstream.close())
  const { app, url, auth } = await startTestApp(t, {
    PUSH_ALLOWED_HOSTS: '127.0.0.1',
    AWS_ENDPOINT_URL: upstream.url,
    CREDENTIAL_VALIDATE_TIMEOUT_MS: '2000',
  })
  const canaries = new Canaries()
  const send = (user: 'dev' | 'other' | 'admin', method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { ...auth(user), ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  const create = async (path: string, body: unknown) => {
    const res = await send('dev', 'POST', path, body)
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return ((await res.json()) as any).data
  }

  // dev's records, every name and secret a canary.
  const credential = await create('/api/cloud-credentials', {
    name: canaries.make('credname', { prefix: 'cred', case: 'lower' }),
    provider: 'aws',
    credentials: {
      accessKeyId: canaries.make('accesskey', { prefix: 'AKIA', case: 'upper' }),
      secretAccessKey: canaries.make('secret'),
      region: 'eu-central-1',
    },
  })
  const environment = await create(
    '/api/environments',
    environmentBody({
      name: canaries.make('envname', { prefix: 'e', case: 'lower', maxLength: 50 }),
      cloudCredentialId: credential.id,
      gitRepository: {
        url: `${upstream.url.replace('http:', 'https:')}/${canaries.make('repo', { prefix: 'r' })}.git`,
        branch: 'main',
        deployKey: DEPLOY_KEY(canaries.make('deploykey')),
      },
    }),
  )
  const dev = { ...auth('dev') }
  const generateJob = await create(`/api/environments/${environment.id}/generate`, {
    format: 'terraform',
    options: { includeBackend: true },
  })
  t.equal((await waitForJob(url, dev, generateJob.id)).status, 'succeeded', 'dev has a generation job with an archive')
  const pushJob = await create(`/api/environments/${environment.id}/push`, {})
  await waitForJob(url, dev, pushJob.id) // fails (the loopback endpoint speaks no TLS); its id is what matters
  // dev's team (an admin made it and added dev): its members are not other's to read.
  const team = (await (await send('admin', 'POST', '/api/teams', { name: 'dev-team' })).json()) as any
  await send('admin', 'PUT', '/api/teams/dev-team/members/user/dev', { role: 'editor' })
  // A job of the team's environment owned by the team (`team:<id>`), as the drift schedule queues one.
  const teamEnv = await create('/api/environments', environmentBody({ name: 'team-env', team: 'dev-team' }))
  const teamOwner = (await app.mongo.db.collection<{ _id: string; userId: string }>('environments').findOne({ _id: teamEnv.id }))!.userId
  t.match(teamOwner, /^team:/)
  const teamJob = await app.jobs.enqueue('drift', teamOwner, teamEnv.id, {
    format: 'terraform',
    options: { includeBackend: true, includeChart: true, includeGitops: true },
  })
  t.ok(['succeeded', 'failed'].includes((await waitForJob(url, dev, teamJob._id)).status), 'dev, a member, follows the team’s job')
  // dev's upgrade rollout (a preview of dev's environment): its waves and jobs are dev's alone.
  const rollout = await create('/api/environments/upgrade', { ids: [environment.id], dryRun: true })
  const readRollout = async () => ((await (await send('dev', 'GET', `/api/environments/upgrade/${rollout.rolloutId}`)).json()) as any).data
  // Its preview fails (the loopback endpoint speaks no TLS); once it has stopped, dev's records stay as they are.
  t.not((await eventually(readRollout, (r) => r.status !== 'running', { timeoutMs: 60_000 })).status, 'running', "dev's rollout has ended")
  const ids: Record<IdKind, string> = {
    environment: environment.id,
    credential: credential.id,
    generateJob: generateJob.id,
    pushJob: pushJob.id,
    teamJob: teamJob._id,
    team: team.data.id,
    rollout: rollout.rolloutId,
  }
  const devUserId = ((await (await send('dev', 'GET', '/api/users/me')).json()) as any).data.id as string

  // other's own environment and credential, for the ids-in-bodies cases.
  const otherEnv = (await (await send('other', 'POST', '/api/environments', environmentBody({ name: 'other-env' }))).json()) as any
  t.ok(otherEnv.data?.id, 'other has an environment of its own')

  const doc = await (await send('dev', 'GET', '/api/openapi.json')).json()
  const withIds = operationsOf(doc).filter((op: Operation) => op.pathParams.length > 0)
  t.ok(withIds.length >= Object.keys(MATRIX).length, `the document has ${withIds.length} operations with ids`)
  t.same(
    withIds.map((op) => op.name).filter((name) => !MATRIX[name] && !ADMIN_ONLY.has(name)),
    [],
    'every operation with an id is in the matrix',
  )
  // Operations for admins only: other is refused before anything is looked up, alike for a real id and an absent one.
  for (const op of withIds.filter((o) => ADMIN_ONLY.has(o.name))) {
    for (const id of [ids.team, randomUUID()]) {
      const res = await send(
        'other',
        op.method,
        op.path
          .replace(/\{team\}/, id)
          .replace('{kind}', 'user')
          .replace('{name}', 'other'),
        { name: 'taken', role: 'editor' },
      )
      t.equal(res.status, 403, `${op.name} as other: 403`)
    }
  }

  const before = await ownedSnapshot(app.mongo.db, devUserId)
  t.ok(before.documents > 0, `dev's records are in the snapshot (${before.documents} documents)`)
  const scan = new CanaryScan(canaries)
  // The scanner sees dev's canaries where they belong: dev's own reads.
  scan.add('canary check: dev reads its environment', await (await send('dev', 'GET', `/api/environments/${environment.id}`)).text())
  t.ok(
    scan.hits.some((h) => h.canary === 'envname'),
    'the scanner finds a planted canary',
  )
  scan.hits.length = 0

  for (const op of withIds) {
    const entry = MATRIX[op.name]
    if (!entry) continue
    for (const kind of entry.ids) {
      const id = ids[kind]
      const path = pathWith(op.path, id)
      const res = await send('other', op.method, path, entry.body)
      const body = await res.text()
      t.equal(res.status, 404, `${op.name} with dev's ${kind}: 404`)
      t.match(JSON.parse(body), { error: { code: 'NOT_FOUND' } }, `${op.name} (${kind}): NOT_FOUND`)
      scan.add(`${op.name} (${kind}) as other`, body)
      const absent = randomUUID()
      const control = await send('other', op.method, pathWith(op.path, absent), entry.body)
      t.equal(
        shapeOf(body, id),
        shapeOf(await control.text(), absent),
        `${op.name} (${kind}): same answer as for an id that does not exist`,
      )
    }
  }

  // Ids in bodies.
  const refused = async (name: string, res: Response, status: number[]) => {
    const body = await res.text()
    t.ok(status.includes(res.status), `${name}: ${res.status} (${body.slice(0, 160)})`)
    scan.add(`${name} as other`, body)
  }
  await refused(
    "POST /api/environments with dev's cloudCredentialId",
    await send('other', 'POST', '/api/environments', environmentBody({ name: 'borrow-cred', cloudCredentialId: credential.id })),
    [400, 404],
  )
  await refused(
    "PUT other's environment with dev's cloudCredentialId",
    await send('other', 'PUT', `/api/environments/${otherEnv.data.id}`, { cloudCredentialId: credential.id }),
    [400, 404],
  )
  await refused(
    "POST push of other's environment with dev's generationJobId",
    await send('other', 'POST', `/api/environments/${otherEnv.data.id}/push`, { generationJobId: generateJob.id }),
    [400, 404],
  )
  await refused(
    "POST /api/ai/chat about dev's environment",
    await send('other', 'POST', '/api/ai/chat', {
      messages: [{ role: 'user', content: 'What is configured?' }],
      environmentId: environment.id,
    }),
    [400, 404],
  )
  await refused(
    "POST terraform-backend/create with dev's cloudCredentialId",
    await send('other', 'POST', '/api/environments/terraform-backend/create', { cloudCredentialId: credential.id, bucket: 'other-state' }),
    [400, 404],
  )
  for (const wait of ['', '&wait=true']) {
    const batch = await send('other', 'GET', `/api/jobs?ids=${generateJob.id},${pushJob.id},${teamJob._id}${wait}`)
    const text = await batch.text()
    t.same([batch.status, JSON.parse(text).data], [200, []], `GET /api/jobs?ids=<dev's and dev's team's jobs>${wait}: none of them`)
    scan.add(`GET /api/jobs?ids=...${wait} as other`, text)
  }
  const list = await send('other', 'GET', '/api/environments?limit=100')
  scan.add('GET /api/environments as other', await list.text())
  scan.add('GET /api/cloud-credentials as other', await (await send('other', 'GET', '/api/cloud-credentials')).text())
  t.equal(
    ((await (await send('other', 'GET', '/api/environments?limit=100')).json()) as any).data.length,
    1,
    'other lists only its own environment',
  )
  t.equal(((await (await send('other', 'GET', '/api/cloud-credentials')).json()) as any).data.length, 0, 'other lists no credential')

  t.equal(scan.hits.length, 0, `nothing of dev's in other's answers:\n${scan.report()}`)
  const after = await ownedSnapshot(app.mongo.db, devUserId)
  t.same(after.byCollection, before.byCollection, "dev's records are unchanged")
  t.equal((await send('dev', 'GET', `/api/environments/${environment.id}`)).status, 200, 'dev still has its environment')
  t.equal((await send('dev', 'GET', `/api/jobs/${generateJob.id}/download`)).status, 200, 'and its archive')
})
