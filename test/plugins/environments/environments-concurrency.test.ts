// Concurrent writes of environments and cloud credentials (plugins/environments/README.md,
// "Concurrent writes"; plugins/cloud-credentials/README.md, "Deleting a credential in use"): merge
// patches of the same environment never lose an acknowledged update (also on records from before the
// version field), and a credential is never deleted while an environment is being pointed at it (no
// dangling `cloudCredentialId`, whichever request wins; also with the two requests on two servers).
// A stored reference to a credential that is gone does not block later updates. A write from a stale
// read is a VersionConflict, which `updating` retries on a fresh read (the path other replicas take
// on MongoDB). Several rounds each: the races are timing-dependent.
import t, { type Test } from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildApp } from '@ies/server'
import { KeyedMutex } from '@ies/server/core/keyed-mutex'
import { VersionConflict } from '../../../plugins/environments/repository.ts'
import { startTestApp } from '../../harness/app.ts'
import { AWS_KEY, api, fieldsOf } from '../helpers.ts'

const base = { globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1' }
const SERVICES = ['eks', 'rds', 'vpc', 's3', 'redis', 'sqs', 'sns', 'efs']
const ROUNDS = 6
const LAGS_MS = [0, 3, 10, 20]

/** True when the promise rejects with a VersionConflict answered as 409 CONFLICT. */
const isVersionConflict = (p: Promise<unknown>) =>
  p.then(
    () => false,
    (err) => err instanceof VersionConflict && err.statusCode === 409 && err.code === 'CONFLICT',
  )

/** Runs `request` after `ms` milliseconds (0: on the next turn of the event loop). */
const later = <T>(ms: number, request: () => Promise<T>) =>
  new Promise<T>((resolve, reject) => setTimeout(() => request().then(resolve, reject), ms))

interface RawEnvironment {
  _id: string
  userId: string
  cloudCredentialId?: string
  services?: Record<string, { enabled: boolean }>
}

t.test('concurrent writes', async (t) => {
  const ctx = await startTestApp(t)
  const a = api(ctx)
  const environments = ctx.app.mongo.db.collection<RawEnvironment>('environments')
  const credentials = ctx.app.mongo.db.collection<{ _id: string }>('cloud_credentials')

  /** Ids of stored environments whose `cloudCredentialId` names no stored credential. */
  async function danglingReferences(): Promise<string[]> {
    const dangling: string[] = []
    for (const env of await environments.find({ cloudCredentialId: { $exists: true } }).toArray()) {
      if (env.cloudCredentialId && !(await credentials.findOne({ _id: env.cloudCredentialId }))) dangling.push(env._id)
    }
    return dangling
  }

  async function enableEightAtOnce(t: Test, id: string, label: string) {
    const results = await Promise.all(SERVICES.map((key) => a.putEnv('dev', id, { services: { [key]: { enabled: true } } })))
    t.same(
      results.map((r) => r.status),
      SERVICES.map(() => 200),
      `${label}: every update answered 200`,
    )
    const after = await a.getEnv('dev', id)
    t.same(Object.keys(after.body.data.services).sort(), [...SERVICES].sort(), `${label}: all 8 services are stored`)
    t.ok(
      Object.values(after.body.data.services as Record<string, { enabled: boolean }>).every((s) => s.enabled),
      `${label}: all enabled`,
    )
  }

  t.test('8 concurrent merge patches of different services all survive', async (t) => {
    for (let round = 1; round <= ROUNDS; round++) {
      const env = (await a.createEnv('dev', { ...base, name: `lost-update-${round}` })).body.data
      await enableEightAtOnce(t, env.id, `round ${round}`)
    }
  })

  t.test('a record without a version field (written before it) takes concurrent patches too', async (t) => {
    for (let round = 1; round <= ROUNDS; round++) {
      const env = (await a.createEnv('dev', { ...base, name: `legacy-version-${round}` })).body.data
      await environments.updateOne({ _id: env.id }, { $unset: { version: '' } })
      await enableEightAtOnce(t, env.id, `legacy round ${round}`)
    }
  })

  t.test('concurrent patches of different fields and a deploy key keep every change', async (t) => {
    const env = (await a.createEnv('dev', { ...base, name: 'mixed-fields' })).body.data
    const patches = [
      { domain: 'mixed.example.com' },
      { region: 'eu-central-1' },
      { services: { eks: { enabled: true, nodeCount: 3 } } },
      { helmCharts: { 'argo-cd': { enabled: true } } },
      { gitRepository: { url: 'https://git.example.com/acme/infra.git', deployKey: 'token-123' } },
      { services: { rds: { enabled: false } } },
    ]
    const results = await Promise.all(patches.map((p) => a.putEnv('dev', env.id, p)))
    t.same(
      results.map((r) => r.status),
      patches.map(() => 200),
    )
    const after = (await a.getEnv('dev', env.id)).body.data
    t.match(after, {
      domain: 'mixed.example.com',
      region: 'eu-central-1',
      services: { eks: { enabled: true, nodeCount: 3 }, rds: { enabled: false } },
      helmCharts: { 'argo-cd': { enabled: true } },
      gitRepository: { url: 'https://git.example.com/acme/infra.git', hasDeployKey: true },
    })
  })

  t.test('assigning a credential while it is deleted never leaves a dangling reference', async (t) => {
    const outcomes = new Set<string>()
    for (let round = 1; round <= ROUNDS * 2; round++) {
      const cred = (await a.createCred('dev', { name: `race-cred-${round}`, provider: 'aws', credentials: AWS_KEY })).body.data
      const env = (await a.createEnv('dev', { ...base, name: `race-env-${round}` })).body.data
      // Alternate which request starts first, and start the other 0-20 ms later: both orders occur.
      const lag = LAGS_MS[(round >> 1) % LAGS_MS.length]!
      const [put, del] =
        round % 2
          ? await Promise.all([a.putEnv('dev', env.id, { cloudCredentialId: cred.id }), later(lag, () => a.deleteCred('dev', cred.id))])
          : await Promise.all([
              a.deleteCred('dev', cred.id),
              later(lag, () => a.putEnv('dev', env.id, { cloudCredentialId: cred.id })),
            ]).then(([d, p]) => [p, d])
      const stored = await environments.findOne({ _id: env.id })
      const credentialExists = (await a.getCred('dev', cred.id)).status === 200
      outcomes.add(`PUT ${put.status} / DELETE ${del.status}`)

      t.notOk(put.status === 200 && del.status === 204, `round ${round}: not both acknowledged (PUT ${put.status}, DELETE ${del.status})`)
      if (put.status === 200) {
        t.equal(stored?.cloudCredentialId, cred.id, `round ${round}: the acknowledged assignment is stored`)
        t.equal(put.body.data.cloudCredentialId, cred.id)
        t.ok(credentialExists, `round ${round}: the assigned credential exists`)
        t.equal(del.status, 400, `round ${round}: the delete was refused`)
        t.equal(del.body?.error?.code, 'CREDENTIAL_IN_USE')
        t.same(del.body?.error?.details, { environments: [`race-env-${round}`] })
      } else {
        t.equal(put.status, 400, `round ${round}: ${put.raw}`)
        t.same(fieldsOf(put.body), ['cloudCredentialId'])
        t.notOk(stored?.cloudCredentialId, `round ${round}: the refused assignment changed nothing`)
        t.equal(del.status, 204, `round ${round}: the delete went through`)
        t.notOk(credentialExists, `round ${round}: the credential is gone`)
      }
      // Whatever the outcome, the environment takes later updates that do not name a credential.
      const next = await a.putEnv('dev', env.id, { services: { eks: { enabled: true } } })
      t.equal(next.status, 200, `round ${round}: a later update is accepted: ${next.raw}`)
    }
    t.same(await danglingReferences(), [], 'no environment references a missing credential')
    t.comment(`outcomes seen: ${[...outcomes].join(', ')}`)
  })

  t.test('creating an environment with a credential while it is deleted never leaves a dangling reference', async (t) => {
    const outcomes = new Set<string>()
    for (let round = 1; round <= ROUNDS * 2; round++) {
      const cred = (await a.createCred('dev', { name: `race-create-cred-${round}`, provider: 'aws', credentials: AWS_KEY })).body.data
      const lag = LAGS_MS[(round >> 1) % LAGS_MS.length]!
      const create = () => a.createEnv('dev', { ...base, name: `race-create-${round}`, cloudCredentialId: cred.id })
      const [created, del] =
        round % 2
          ? await Promise.all([create(), later(lag, () => a.deleteCred('dev', cred.id))])
          : await Promise.all([a.deleteCred('dev', cred.id), later(lag, create)]).then(([d, c]) => [c, d])
      outcomes.add(`POST ${created.status} / DELETE ${del.status}`)
      t.notOk(
        created.status === 201 && del.status === 204,
        `round ${round}: not both acknowledged (POST ${created.status}, DELETE ${del.status})`,
      )
      if (created.status === 201) t.equal(del.body?.error?.code, 'CREDENTIAL_IN_USE', `round ${round}`)
      else t.same(fieldsOf(created.body), ['cloudCredentialId'], `round ${round}: ${created.raw}`)
    }
    t.same(await danglingReferences(), [], 'no environment references a missing credential')
    t.comment(`outcomes seen: ${[...outcomes].join(', ')}`)
  })

  t.test('a stored reference to a credential that is gone does not block updates', async (t) => {
    // A record written before the fix (or by a replica racing on a backend without atomic
    // conditional writes): its credential was deleted behind its back.
    const cred = (await a.createCred('dev', { name: 'vanishing', provider: 'aws', credentials: AWS_KEY })).body.data
    const env = (await a.createEnv('dev', { ...base, name: 'orphaned', cloudCredentialId: cred.id })).body.data
    await credentials.deleteOne({ _id: cred.id })

    const read = await a.getEnv('dev', env.id)
    t.equal(read.status, 200)
    t.notOk('cloudCredentialId' in read.body.data, 'a reference to a missing credential reads as none')

    const res = await a.putEnv('dev', env.id, { region: 'eu-central-1' })
    t.equal(res.status, 200, `an update that does not name a credential is accepted: ${res.raw}`)
    t.equal(res.body.data.region, 'eu-central-1')
    t.notOk('cloudCredentialId' in res.body.data)
    t.notOk((await environments.findOne({ _id: env.id }))?.cloudCredentialId, 'the write drops the stale reference')

    await environments.updateOne({ _id: env.id }, { $set: { cloudCredentialId: cred.id } })
    const again = await a.putEnv('dev', env.id, { cloudCredentialId: cred.id })
    t.equal(again.status, 400, 'naming the missing credential in the patch is refused')
    t.same(fieldsOf(again.body), ['cloudCredentialId'])
    const other = (await a.createCred('dev', { name: 'replacement', provider: 'aws', credentials: AWS_KEY })).body.data
    const replaced = await a.putEnv('dev', env.id, { cloudCredentialId: other.id })
    t.equal(replaced.status, 200, 'another credential can be assigned')
    t.equal(replaced.body.data.cloudCredentialId, other.id)
  })

  t.test('a write from a stale read is refused, and updating() re-runs it on the fresh record', async (t) => {
    const repo = ctx.app.environments
    const env = (await a.createEnv('dev', { ...base, name: 'stale-read' })).body.data
    const userId = (await a.call('dev', 'GET', '/api/users/me')).body.data.id
    const stale = (await repo.get(userId, env.id))!
    t.equal(stale.version, 1, 'a new record has version 1')
    t.equal((await a.putEnv('dev', env.id, { domain: 'first.example.com' })).status, 200)

    // What another replica's write looks like to this one: the version moved since the read.
    const input = { ...base, name: 'stale-read', services: { eks: { enabled: true } } } as never
    t.ok(await isVersionConflict(repo.replace(stale, input, 'keep')), 'a write from the stale read is a VersionConflict (409)')
    t.equal((await a.getEnv('dev', env.id)).body.data.domain, 'first.example.com', 'the stale write changed nothing')

    // updating(): the first attempt works from the stale record and loses; the retry re-reads.
    const request = { body: { services: { eks: { enabled: true } } } as Record<string, unknown> }
    let attempts = 0
    const updated = await repo.updating(userId, request, async (locked) => {
      attempts++
      const read = attempts === 1 ? stale : (await repo.get(userId, env.id))!
      t.same(request.body, { services: { eks: { enabled: true } } }, `attempt ${attempts} gets the patch as sent`)
      ;(request.body.services as Record<string, unknown>).mutated = true
      return locked.replace(
        read,
        { ...base, name: 'stale-read', domain: read.domain, services: { eks: { enabled: true } } } as never,
        'keep',
      )
    })
    t.equal(attempts, 2)
    t.match(updated, { domain: 'first.example.com', services: { eks: { enabled: true } }, version: 3 })

    // A record from before the version field: its first write is conditional on the field's absence.
    await environments.updateOne({ _id: env.id }, { $unset: { version: '' } })
    const legacy = (await repo.get(userId, env.id))!
    t.equal(legacy.version, undefined)
    const written = await repo.replace(legacy, { ...base, name: 'stale-read' } as never, 'keep')
    t.equal(written?.version, 1)
    t.ok(await isVersionConflict(repo.replace(legacy, { ...base, name: 'stale-read' } as never, 'keep')), 'only once')
    t.equal(await repo.replace({ ...legacy, _id: '00000000-0000-4000-8000-000000000000' }, input, 'keep'), null, 'a missing record is null')

    // A conflict that persists ends as 409 after a few attempts.
    let tries = 0
    await t.rejects(
      repo.updating(userId, { body: {} }, async () => {
        tries++
        throw new VersionConflict()
      }),
      { statusCode: 409, code: 'CONFLICT' },
    )
    t.equal(tries, 5)
  })

  t.test('two servers on one database: a deletion and an assignment never both succeed', async (t) => {
    // A second app has its own database client, so its own lock: the deletion mark is what keeps
    // the two apart (the path other replicas take).
    const app2 = await buildApp({ config: ctx.config, logger: false })
    t.teardown(() => app2.close())
    const b = api({ ...ctx, app: app2 })
    const outcomes = new Set<string>()
    for (let round = 1; round <= ROUNDS * 2; round++) {
      const cred = (await a.createCred('dev', { name: `replica-cred-${round}`, provider: 'aws', credentials: AWS_KEY })).body.data
      const env = (await a.createEnv('dev', { ...base, name: `replica-env-${round}` })).body.data
      const lag = LAGS_MS[(round >> 1) % LAGS_MS.length]!
      const [put, del] =
        round % 2
          ? await Promise.all([a.putEnv('dev', env.id, { cloudCredentialId: cred.id }), later(lag, () => b.deleteCred('dev', cred.id))])
          : await Promise.all([
              b.deleteCred('dev', cred.id),
              later(lag, () => a.putEnv('dev', env.id, { cloudCredentialId: cred.id })),
            ]).then(([d, p]) => [p, d])
      outcomes.add(`PUT ${put.status} / DELETE ${del.status}`)
      const stored = await environments.findOne({ _id: env.id })
      t.notOk(put.status === 200 && del.status === 204, `round ${round}: not both acknowledged`)
      t.ok([200, 400].includes(put.status) && [204, 400].includes(del.status), `round ${round}: PUT ${put.raw} DELETE ${del.raw}`)
      if (put.status === 200) t.equal(stored?.cloudCredentialId, cred.id, `round ${round}: the acknowledged assignment is stored`)
      else t.notOk(stored?.cloudCredentialId, `round ${round}: the refused assignment is not stored`)
      if (del.status === 400) t.equal(del.body.error.code, 'CREDENTIAL_IN_USE')
      t.equal(
        (await a.getCred('dev', cred.id)).status,
        del.status === 204 ? 404 : 200,
        `round ${round}: the credential is there unless deleted`,
      )
      const raw = await credentials.findOne({ _id: cred.id })
      t.notOk(raw && 'deleting' in raw, `round ${round}: no deletion mark left behind`)
    }
    t.same(await danglingReferences(), [], 'no environment references a missing credential')
    t.comment(`outcomes seen: ${[...outcomes].join(', ')}`)
  })
})

t.test('KeyedMutex', async (t) => {
  const mutex = new KeyedMutex()
  const log: string[] = []
  const task = (key: string, name: string, ms: number) =>
    mutex.run(key, async () => {
      log.push(`${name} start`)
      await sleep(ms)
      log.push(`${name} end`)
      return name
    })
  const results = await Promise.all([task('a', 'a1', 20), task('a', 'a2', 1), task('b', 'b1', 5), task('a', 'a3', 1)])
  t.same(results, ['a1', 'a2', 'b1', 'a3'])
  const order = (name: string) => log.indexOf(name)
  t.ok(order('a1 end') < order('a2 start') && order('a2 end') < order('a3 start'), 'one key: one at a time, in arrival order')
  t.ok(order('b1 end') < order('a1 end'), 'another key does not wait')

  // Not re-entrant (keyed-mutex.ts): a nested run of the same key waits for the outer one.
  let nested: Promise<string> | undefined
  const outer = await mutex.run('a', async () => {
    nested = mutex.run('a', async () => {
      log.push('nested ran')
      return 'nested'
    })
    await sleep(5)
    return log.includes('nested ran') ? 'interleaved' : 'outer'
  })
  t.equal(outer, 'outer', 'the nested run did not run inside its holder')
  t.equal(await nested, 'nested', 'a nested run of the key runs after its holder')
  await t.rejects(
    mutex.run('a', async () => Promise.reject(new Error('boom'))),
    /boom/,
    'an error is passed on',
  )
  t.equal(await mutex.run('a', async () => 'after'), 'after', 'and releases the key')
  t.notOk(mutex.busy('a') || mutex.busy('b'), 'nothing left queued')
})
