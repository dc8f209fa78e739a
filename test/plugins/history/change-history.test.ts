// The change history of environments (plugins/history) on a real server and FerretDB: an entry for
// every create, update, credential change, credential rotation, restore and delete, with who, when,
// the request id and the configuration diff; pages newest first; a restore that keeps the deploy
// key and follows PUT's rules; records that outlive the environment until their retention ends;
// an export for admins only. Canary secrets in a deploy key and a credential appear in no history
// response and no export line. Generations and pushes: test/plugins/history/change-history-jobs.test.ts.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { Canaries, CanaryScan } from '../../security/canary.ts'
import { environmentBody } from '../../harness/jobs.ts'

t.test('change history', async (t) => {
  const ctx = await startTestApp(t)
  const secrets = new Canaries()
  const scan = new CanaryScan(secrets)
  const call = async (user: 'dev' | 'other' | 'admin', method: string, path: string, body?: unknown) => {
    const res = await fetch(`${ctx.url}${path}`, {
      method,
      headers: {
        ...ctx.auth(user),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        'x-request-id': crypto.randomUUID(),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    scan.add(`${user} ${method} ${path} -> ${res.status}`, text)
    return { status: res.status, text, headers: res.headers, json: () => JSON.parse(text), requestId: res.headers.get('x-request-id') }
  }
  const history = async (id: string, query = '') => (await call('dev', 'GET', `/api/environments/${id}/history${query}`)).json()

  const credential = (
    await call('dev', 'POST', '/api/cloud-credentials', {
      name: 'aws-main',
      provider: 'aws',
      credentials: {
        accessKeyId: secrets.make('accesskeyid', { prefix: 'AKIA', case: 'upper' }),
        secretAccessKey: secrets.make('awssecret'),
      },
    })
  ).json().data
  const firstKey = secrets.make('deploykey1')
  const created = await call(
    'dev',
    'POST',
    '/api/environments',
    environmentBody({
      name: 'shop-hist',
      cloudCredentialId: credential.id,
      gitRepository: { url: 'https://git.example.com/acme/shop.git', branch: 'main', deployKey: firstKey },
    }),
  )
  t.equal(created.status, 201)
  const env = created.json().data

  t.test('a create records who, when, the request and every field set', async (t) => {
    const body = await history(env.id)
    t.equal(body.pagination.total, 1)
    const [entry] = body.data
    t.match(entry, { id: 1, kind: 'create', environmentId: env.id, environmentName: 'shop-hist', actor: { username: 'dev' } })
    t.ok(entry.actor.userId, 'the user id')
    t.equal(entry.requestId, created.requestId, 'the request id of the create')
    t.ok(Date.parse(entry.at) <= Date.now(), 'when')
    t.same(
      entry.changes.find((c: { field: string }) => c.field === 'gitRepository.hasDeployKey'),
      { field: 'gitRepository.hasDeployKey', after: true },
      'the deploy key shows as responses show it',
    )
    t.same(
      entry.changes.find((c: { field: string }) => c.field === 'services.eks.enabled'),
      { field: 'services.eks.enabled', after: true },
    )
    t.notOk('configuration' in entry, 'the list leaves the configuration out')
  })

  t.test('an update records its diff; the deploy key alone is a credential change', async (t) => {
    const put = await call('dev', 'PUT', `/api/environments/${env.id}`, {
      domain: 'shop.example.org',
      services: { rds: { enabled: true } },
    })
    t.equal(put.status, 200)
    const [entry] = (await history(env.id)).data
    t.equal(entry.kind, 'update')
    t.same(entry.changes, [
      { field: 'domain', before: 'shop.example.com', after: 'shop.example.org' },
      { field: 'services.rds.enabled', after: true },
    ])

    t.equal(
      (await call('dev', 'PUT', `/api/environments/${env.id}`, { gitRepository: { deployKey: secrets.make('deploykey2') } })).status,
      200,
    )
    const [keyEntry] = (await history(env.id)).data
    t.match(keyEntry, { kind: 'credential', changes: [], secretsChanged: ['gitRepository.deployKey'] })

    t.equal((await call('dev', 'PUT', `/api/environments/${env.id}`, { domain: 'shop.example.org' })).status, 200)
    t.equal((await history(env.id)).pagination.total, 3, 'a write that changes nothing is no entry')
  })

  t.test('rotating the secrets of the credential is recorded on the environments using it', async (t) => {
    const res = await call('dev', 'PUT', `/api/cloud-credentials/${credential.id}`, {
      credentials: {
        accessKeyId: secrets.make('accesskeyid2', { prefix: 'AKIA', case: 'upper' }),
        secretAccessKey: secrets.make('awssecret2'),
      },
    })
    t.equal(res.status, 200)
    const [entry] = (await history(env.id)).data
    t.match(entry, { kind: 'credential-rotated', credentialId: credential.id })
    t.notOk(entry.changes, 'no configuration changed')
  })

  t.test('restore sets an earlier configuration as a new change and keeps the deploy key', async (t) => {
    const restored = await call('dev', 'POST', `/api/environments/${env.id}/history/1/restore`)
    t.equal(restored.status, 200)
    t.equal(restored.json().data.domain, 'shop.example.com')
    t.notOk(restored.json().data.services.rds, 'the service added later is gone')
    t.equal(restored.json().data.gitRepository.hasDeployKey, true, 'the deploy key stays')
    const [entry] = (await history(env.id)).data
    t.match(entry, { kind: 'restore', restoredFrom: 1 })
    t.same(entry.changes, [
      { field: 'domain', before: 'shop.example.org', after: 'shop.example.com' },
      { field: 'services.rds.enabled', before: true },
    ])
    const key = await ctx.app.environments.getDeployKey(await userIdOf(env.id), env.id)
    t.equal(key, secrets.value('deploykey2'), 'the current deploy key, not the one of entry 1')

    const detail = (await call('dev', 'GET', `/api/environments/${env.id}/history/${entry.id}`)).json().data
    t.equal(detail.configuration.domain, 'shop.example.com', 'one entry carries its configuration')
    t.equal(detail.configuration.gitRepository.hasDeployKey, true)

    const rotation = entry.id - 1
    const refused = await call('dev', 'POST', `/api/environments/${env.id}/history/${rotation}/restore`)
    t.equal(refused.status, 400, 'an entry without a configuration cannot be restored')
    t.equal(refused.json().error.details[0].field, 'entryId')
    t.equal((await call('dev', 'POST', `/api/environments/${env.id}/history/999/restore`)).status, 404)
    t.equal((await call('dev', 'POST', `/api/environments/${env.id}/history/0/restore`)).status, 400, 'entry ids start at 1')
  })

  async function userIdOf(id: string): Promise<string> {
    return (await ctx.app.mongo.db.collection<{ _id: string; userId: string }>('environments').findOne({ _id: id }))!.userId
  }

  t.test('only who may read the environment reads or restores its history', async (t) => {
    for (const [method, path] of [
      ['GET', `/api/environments/${env.id}/history`],
      ['GET', `/api/environments/${env.id}/history/1`],
      ['POST', `/api/environments/${env.id}/history/1/restore`],
    ]) {
      const res = await call('other', method, path)
      t.equal(res.status, 404, `${method} ${path}`)
      t.equal(res.json().error.code, 'NOT_FOUND')
    }
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await call('dev', method, `/api/environments/${env.id}/history/1`, method === 'DELETE' ? undefined : {})
      t.ok([404, 405].includes(res.status), `${method} of an entry is refused (${res.status})`)
    }
  })

  t.test('pages are newest first and follow the list rules', async (t) => {
    const paged = (await call('dev', 'POST', '/api/environments', environmentBody({ name: 'paged-hist' }))).json().data
    for (let n = 1; n <= 130; n++) {
      const res = await call('dev', 'PUT', `/api/environments/${paged.id}`, { domain: `d${n}.example.com` })
      if (res.status !== 200) t.fail(`update ${n}: ${res.status}`)
    }
    const first = await history(paged.id, '?limit=50')
    t.same(first.pagination, { page: 1, limit: 50, total: 131, totalPages: 3 })
    t.same(
      first.data.map((e: { id: number }) => e.id),
      Array.from({ length: 50 }, (_, i) => 131 - i),
    )
    t.equal(first.data[0].changes[0].after, 'd130.example.com')
    const last = await history(paged.id, '?limit=50&page=3')
    t.same(
      last.data.map((e: { id: number }) => e.id),
      Array.from({ length: 31 }, (_, i) => 31 - i),
    )
    t.equal(last.data.at(-1).kind, 'create')
    t.same((await history(paged.id, '?page=9')).data, [], 'past the end: empty')
    const bad = await call('dev', 'GET', `/api/environments/${paged.id}/history?limit=101`)
    t.equal(bad.status, 400)
    t.equal(bad.json().error.details[0].field, 'limit')
  })

  t.test('deleting keeps the history for the export until its retention ends', async (t) => {
    const doomed = (await call('dev', 'POST', '/api/environments', environmentBody({ name: 'doomed-hist' }))).json().data
    t.equal((await call('dev', 'DELETE', `/api/environments/${doomed.id}`)).status, 204)
    t.equal((await call('dev', 'GET', `/api/environments/${doomed.id}/history`)).status, 404, 'the environment is gone')
    const exported = await call('admin', 'GET', `/api/admin/history?environmentId=${doomed.id}`)
    t.equal(exported.status, 200)
    const lines = exported.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    t.same(
      lines.map((l) => l.kind),
      ['create', 'delete'],
    )
    t.equal(lines[1].actor.username, 'dev')

    const store = ctx.app.history.store
    t.equal(await store.prune(), 0, 'nothing is past its retention yet')
    t.equal(await store.prune(new Date(Date.now() + 364 * 24 * 3600_000)), 0, 'kept for the retention period')
    t.equal(await store.prune(new Date(Date.now() + 366 * 24 * 3600_000)), 1, 'gone after it')
    t.equal((await call('admin', 'GET', `/api/admin/history?environmentId=${doomed.id}`)).text, '')
    t.equal(await store.count(env.id), (await history(env.id)).pagination.total, 'a live environment keeps its history')
  })

  t.test('the export: admins only, JSON lines in a time window', async (t) => {
    const refused = await call('dev', 'GET', '/api/admin/history')
    t.equal(refused.status, 403)
    t.equal(refused.json().error.code, 'FORBIDDEN')
    const all = await call('admin', 'GET', '/api/admin/history')
    t.equal(all.status, 200)
    t.match(all.headers.get('content-type'), /^application\/x-ndjson/)
    const lines = all.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const ofEnv = lines.filter((l) => l.environmentId === env.id)
    t.same(
      ofEnv.map((l) => l.id),
      ofEnv.map((_, i) => i + 1),
      'each environment in order',
    )
    t.ok(ofEnv[0].configuration, 'lines carry the configuration')
    const restoreAt = ofEnv.find((l) => l.kind === 'restore').at
    const window = await call(
      'admin',
      'GET',
      `/api/admin/history?from=${restoreAt}&to=${new Date(Date.parse(restoreAt) + 1).toISOString()}`,
    )
    t.ok(
      window.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .some((l) => l.kind === 'restore' && l.environmentId === env.id),
      'a window holds what happened in it',
    )
    const empty = await call('admin', 'GET', '/api/admin/history?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z')
    t.equal(empty.text, '')
    const backwards = await call('admin', 'GET', '/api/admin/history?from=2001-01-01T00:00:00Z&to=2000-01-01T00:00:00Z')
    t.equal(backwards.status, 400)
    t.equal(backwards.json().error.details[0].field, 'to')
    const notADate = await call('admin', 'GET', '/api/admin/history?from=yesterday')
    t.equal(notADate.status, 400)
    t.equal(notADate.json().error.details[0].field, 'from')
  })

  t.test('no secret in any history response or export line', async (t) => {
    for (const id of [env.id]) {
      const { data } = await history(id, '?limit=100')
      for (const entry of data) await call('dev', 'GET', `/api/environments/${id}/history/${entry.id}`)
    }
    await call('admin', 'GET', '/api/admin/history')
    t.same(scan.hits, [], scan.report() || 'no canary in any response')
    t.ok(scan.scanned.length > 20, `responses scanned: ${scan.scanned.length}`)
  })
})
