// Every query the repositories and the job queue send has an index on MongoDB: the
// server's database commands are recorded (the driver's command monitoring) while the API is used
// end to end (environments, cloud credentials, users, generation, job reads, waits and downloads,
// retention, deletion), each reduced to its shape (collection and filter fields) and listed beside
// the collection's declared indexes. A shape is served when it names `_id` or the leading field of
// a declared index. A new query without an index fails here; a whole-collection read is allowed
// only where it is listed below with its reason.
import t from 'tap'
import { MongoClient, type Document } from 'mongodb'
import { buildApp } from '@ies/server'
import { isFerretDB } from '@ies/server/core/db'
import { startTestApp } from '../harness/app.ts'
import { eventually } from '../harness/eventually.ts'
import { environmentBody } from '../harness/jobs.ts'
import { AWS_KEY } from '../plugins/helpers.ts'
import { approvingTeam } from '../plugins/approvals/fixtures.ts'

/** Whole-collection reads that are meant, with why (background work, not a request). */
const SCANS_ALLOWED: Record<string, string> = {
  jobHistory: 'the retention sweep reads the history once per RETENTION_SWEEP_EVERY_MS',
  upgradeRollouts: 'the retention sweep reads the rollouts once per RETENTION_SWEEP_EVERY_MS',
  environments: 'once per database, the first time a summary is missing: builds every user summary (plugins/environments/summaries.ts)',
  teams: 'the few teams are read whole and kept for a while (plugins/teams/repository.ts `known`)',
  jobsAwaitingApproval: 'holds only the pushes waiting for approval: GET /api/approvals and the approvals sweep read it whole',
  environmentsDriftScheduled: 'holds only the environments with driftCheckHours: each drift schedule scan reads it whole',
}

/** The field names a filter constrains (top level, and inside $and / $or / $nor). */
function fieldsOf(filter: Document | undefined): string[] {
  if (!filter) return []
  const out: string[] = []
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') for (const part of value as Document[]) out.push(...fieldsOf(part))
    else if (!key.startsWith('$')) out.push(key)
  }
  return [...new Set(out)]
}

/** [collection, filter] of each read, update, delete and count of a command. */
function queriesOf(name: string, command: Document): [string, Document | undefined][] {
  switch (name) {
    case 'find':
      return [[command.find, command.filter]]
    case 'count':
      return [[command.count, command.query]]
    case 'distinct':
      return [[command.distinct, command.query]]
    case 'findAndModify':
      return [[command.findAndModify, command.query]]
    case 'update':
      return (command.updates as Document[]).map((u) => [command.update, u.q])
    case 'delete':
      return (command.deletes as Document[]).map((d) => [command.delete, d.q])
    case 'aggregate':
      return [[command.aggregate, (command.pipeline as Document[])[0]?.$match ?? {}]]
    default:
      return []
  }
}

t.test('every query shape has an index', async (t) => {
  // The server under test runs the jobs with a monitored client; the harness app only serves tokens.
  const ctx = await startTestApp(t, {
    JOBS_PROCESS: 'false',
    PUSH_ALLOWED_HOSTS: '127.0.0.1',
    RETENTION_KEEP_PER_ENVIRONMENT: '1',
    RETENTION_MAX_AGE_MS: '0',
  })
  const client = new MongoClient(ctx.db.uri, { monitorCommands: true })
  const shapes = new Map<string, { collection: string; fields: string[]; command: string; example: string }>()
  // The queue's commands FerretDB would serve by reading the whole queue (agenda-backend.ts).
  const queueScans: string[] = []
  client.on('commandStarted', (event) => {
    const { command } = event
    if (event.commandName === 'update' && command.update === 'agendaJobs')
      for (const u of command.updates as Document[])
        if (Object.keys(u.q).join() === '_id,name') queueScans.push(`update ${JSON.stringify(u.q)}`)
    if (event.commandName === 'findAndModify' && command.findAndModify === 'agendaJobs' && command.sort && !('_id' in command.query))
      queueScans.push(`findAndModify sorted by ${JSON.stringify(command.sort)}`)
    for (const [collection, filter] of queriesOf(event.commandName, event.command)) {
      const fields = fieldsOf(filter).sort()
      const key = `${collection} {${fields.join(', ')}}`
      if (!shapes.has(key))
        shapes.set(key, { collection, fields, command: event.commandName, example: JSON.stringify(filter).slice(0, 160) })
    }
  })
  await client.connect()
  t.teardown(() => client.close())
  const config = {
    ...ctx.config,
    jobs: { ...ctx.config.jobs, process: true },
    plan: { ...ctx.config.plan, driftSchedule: { ...ctx.config.plan.driftSchedule, scanEveryMs: 50 } },
  }
  const app = await buildApp({ config, logger: false, mongoClient: client })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })

  const call = async (user: 'dev' | 'other', method: string, url: string, payload?: unknown) => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: ctx.auth(user),
      ...(payload !== undefined && { payload: payload as object }),
    })
    return {
      status: res.statusCode,
      body: res.body && String(res.headers['content-type']).includes('json') ? JSON.parse(res.body) : undefined,
    }
  }
  t.equal((await call('dev', 'GET', '/api/users/me')).status, 200)
  const cred = await call('dev', 'POST', '/api/cloud-credentials', { name: 'main', provider: 'aws', credentials: AWS_KEY })
  t.equal(cred.status, 201, JSON.stringify(cred.body?.error ?? null))
  const credId = cred.body.data.id
  await call('dev', 'GET', '/api/cloud-credentials')
  await call('dev', 'GET', `/api/cloud-credentials/${credId}`)
  const env = await call('dev', 'POST', '/api/environments', environmentBody({ name: 'shapes', cloudCredentialId: credId }))
  t.equal(env.status, 201, JSON.stringify(env.body?.error ?? null))
  const envId = env.body.data.id
  await call('dev', 'POST', '/api/environments', environmentBody({ name: 'shapes-2' }))
  for (const query of ['', '?sort=name', '?provider=aws&status=pending&sort=created_at&order=asc&page=2&limit=1']) {
    t.equal((await call('dev', 'GET', `/api/environments${query}`)).status, 200)
  }
  await call('dev', 'GET', `/api/environments/${envId}`)
  await call('other', 'GET', `/api/environments/${envId}`)
  t.equal((await call('dev', 'PUT', `/api/environments/${envId}`, { domain: 'other.example.com' })).status, 200)
  // The drift schedule's scans read the list of scheduled environments, not the environments.
  t.equal((await call('dev', 'PUT', `/api/environments/${envId}`, { driftCheckHours: 24 })).status, 200)
  const scans = async () =>
    (await app.mongo.db.collection<{ _id: string; count: number }>('driftScheduleScans').findOne({ _id: 'scans' }))?.count ?? 0
  const seen = await scans()
  await eventually(scans, (n) => n >= seen + 2, { timeoutMs: 30_000 })
  t.equal((await call('dev', 'GET', '/api/environments/upgrades')).status, 200)
  const rollout = await call('dev', 'POST', '/api/environments/upgrade', { pattern: 'shapes*', waves: ['*-2', '*'], dryRun: true })
  t.equal(rollout.status, 202)
  t.equal((await call('dev', 'GET', `/api/environments/upgrade/${rollout.body.data.rolloutId}`)).status, 200)
  const jobs: string[] = []
  for (let i = 0; i < 2; i++) {
    const gen = await call('dev', 'POST', `/api/environments/${envId}/generate`, { format: 'terraform', options: {} })
    t.equal(gen.status, 202)
    const waited = await call('dev', 'GET', `/api/jobs/${gen.body.data.id}?wait=true`)
    t.equal(waited.body.data.status, 'succeeded')
    jobs.push(gen.body.data.id)
  }
  const sync = await call('dev', 'POST', `/api/environments/${envId}/generate?wait=true`, { format: 'terraform', options: {} })
  t.equal(sync.status, 200)
  await call('dev', 'GET', `/api/jobs/${jobs[1]}`)
  t.equal((await call('dev', 'GET', `/api/jobs/${jobs[1]}/download`)).status, 200)
  await call('other', 'GET', `/api/jobs/${jobs[1]}`)
  t.equal((await call('dev', 'GET', `/api/jobs/${jobs[1]}/files`)).status, 200)
  const history = await call('dev', 'GET', `/api/environments/${envId}/jobs?limit=1`)
  t.equal((await call('dev', 'GET', `/api/environments/${envId}/jobs?limit=1&cursor=${history.body.pagination.nextCursor}`)).status, 200)
  // Approvals: pushes held, listed, approved, rejected, expired by the sweep, and a held push's environment deleted.
  const team = await approvingTeam(t, { ...ctx, app })
  const prod = await team.environment('shapes-prod', 'main')
  await team.asOperator()
  t.equal((await team.call('admin', 'PUT', '/api/teams/platform/settings', { requireProductionApproval: true })).status, 200)
  const held = async () => {
    const push = await team.call('dev', 'POST', `/api/environments/${prod.id}/push`, {})
    t.equal(push.body.data.status, 'awaiting-approval')
    return push.body.data.id as string
  }
  const [toApprove, toReject, toExpire] = [await held(), await held(), await held()]
  t.equal((await team.call('carol', 'GET', '/api/approvals')).body.data.length, 3)
  t.equal((await team.call('carol', 'POST', `/api/approvals/${toApprove}/approve`)).status, 200)
  t.equal((await team.call('carol', 'POST', `/api/approvals/${toReject}/reject`, {})).status, 200)
  await app.jobs.store.collection.updateOne({ _id: toExpire }, { $set: { 'approval.expiresAt': new Date(0) } })
  t.equal(await app.approvals.sweep(app.log), 1, 'the sweep ends the expired request')
  await held()
  await team.call('dev', 'GET', `/api/jobs/${toApprove}?wait=true`)
  await team.call('admin', 'PUT', '/api/teams/platform/members/user/dev', { role: 'editor' })
  t.equal((await team.call('dev', 'DELETE', `/api/environments/${prod.id}`)).status, 204)
  t.same(await app.jobs.store.awaitingApproval(), [], 'a deleted environment’s held push no longer waits')
  await app.jobs.sweep()
  t.equal((await call('dev', 'DELETE', `/api/cloud-credentials/${credId}`)).status, 400, 'a credential in use is not deleted')
  t.equal((await call('dev', 'DELETE', `/api/environments/${envId}`)).status, 204)
  t.equal((await call('dev', 'DELETE', `/api/cloud-credentials/${credId}`)).status, 204)

  const db = client.db()
  const indexes = new Map<string, string[][]>()
  for (const collection of new Set([...shapes.values()].map((s) => s.collection))) {
    const list = await db
      .collection(collection)
      .listIndexes()
      .toArray()
      .catch(() => [])
    indexes.set(
      collection,
      list.map((i) => Object.keys(i.key as Document)),
    )
  }
  const rows: string[] = []
  const unserved: string[] = []
  for (const [key, shape] of [...shapes].sort(([a], [b]) => a.localeCompare(b))) {
    const declared = indexes.get(shape.collection) ?? []
    const index = shape.fields.includes('_id') ? ['_id'] : declared.find((keys) => shape.fields.includes(keys[0]))
    const allowed = shape.fields.length === 0 && SCANS_ALLOWED[shape.collection]
    rows.push(
      `${key.padEnd(70)} ${shape.command.padEnd(13)} ${index ? `index {${index.join(', ')}}` : allowed ? `scan: ${allowed}` : 'NO INDEX'}`,
    )
    if (!index && !allowed) unserved.push(`${key} (${shape.command}: ${shape.example})`)
  }
  t.comment(`query shapes and the index serving each:\n${rows.join('\n')}`)
  t.ok(shapes.size > 10, `${shapes.size} query shapes recorded`)
  t.same(unserved, [], 'every query shape is served by a declared index')
  if (await isFerretDB(db)) t.same(queueScans.slice(0, 3), [], 'on FerretDB the queue saves by _id alone and takes the next job unsorted')
  else t.ok(queueScans.length > 0, "on MongoDB Agenda's queries go as it writes them")
})
