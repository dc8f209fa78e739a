// Pinned templates versions and upgrades in waves, end to end: a git http-backend server holds the
// templates (TEMPLATES_REPO: a template change is a commit pushed there) and the customers'
// repositories; the git CLI plays the template author and the customer.
import { execFile } from 'node:child_process'
import { appendFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../harness/app.ts'
import { startGitServer } from '../../harness/git-server.ts'
import { environmentBody, waitForJob } from '../../harness/jobs.ts'
import { jsonApi, rolloutEnded } from '../../harness/push-server.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_cGluLXdhdmVzLWRlcGxveS1rZXk'
const BASIC = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
const IDENTITY = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid', '-c', `http.extraHeader=${BASIC}`]

t.test('pinned environments and upgrades in waves', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
  const { app, url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEMPLATES_REPO: git.url('templates', true) })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const api = jsonApi(url, dev)
  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    await git.createRepo(name, {})
    const body = { ...environmentBody({ name }), gitRepository: { url: git.url(name), branch: 'main', deployKey: DEPLOY_KEY }, ...extra }
    const res = await api('POST', '/environments', body)
    if (res.status !== 201) throw new Error(`environment ${name}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data as { id: string }
  }
  const push = async (id: string) => {
    const res = await api('POST', `/environments/${id}/push`, {})
    if (res.status !== 202) throw new Error(`push: ${res.status} ${JSON.stringify(res.body)}`)
    return waitForJob(url, dev, res.body.data.id)
  }
  const show = async (repo: string, file: string) => (await git.git(repo, ['show', `main:${file}`])).toString()
  const head = async (repo: string) => (await git.git(repo, ['rev-parse', 'main'])).trim()
  const clone = async (repo: string) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `ies-waves-${repo}-`))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const gitIn = async (...args: string[]) => (await run('git', [...IDENTITY, ...args], { cwd: dir })).stdout
    await gitIn('clone', '-q', git.url(repo), '.')
    return {
      git: gitIn,
      append: async (file: string, line: string) =>
        writeFile(path.join(dir, file), `${await readFile(path.join(dir, file), 'utf8')}${line}\n`),
      commitAndPush: async (message: string) => {
        await gitIn('commit', '-q', '-am', message)
        await gitIn('push', '-q', 'origin', 'HEAD:main')
        return (await gitIn('rev-parse', 'HEAD')).trim()
      },
    }
  }
  const changeTemplates = async (line: string) => {
    const templates = await clone('templates')
    await templates.append('terraform/versions.tf', line)
    return templates.commitAndPush(`templates: ${line}`)
  }
  const rolloutDone = (id: string) => rolloutEnded(api, id)

  await t.test('a pinned environment keeps its templates version until an upgrade moves the pin', async (t) => {
    const env = await create('pin-dev')
    const first = await push(env.id)
    t.equal(first.status, 'succeeded', JSON.stringify(first.error))
    const t0 = first.result.templatesCommit as string

    const bad = await api('PUT', `/environments/${env.id}`, { templatesPin: 'f'.repeat(40) })
    t.match(bad, { status: 400, body: { error: { code: 'VALIDATION_ERROR', details: [{ field: 'templatesPin' }] } } })
    const pinned = await api('PUT', `/environments/${env.id}`, { templatesPin: t0 })
    t.equal(pinned.status, 200, JSON.stringify(pinned.body))
    t.equal(pinned.body.data.templatesPin, t0)

    const t1 = await changeTemplates('# templates change one')
    const changed = await api('PUT', `/environments/${env.id}`, { domain: 'pinned.example.com' })
    t.equal(changed.status, 200)
    t.match(changed.body.data.behind, { templates: true, configuration: true, commits: 1 }, 'the pin is one commit behind the newest')
    const second = await push(env.id)
    t.equal(second.status, 'succeeded', JSON.stringify(second.error))
    t.equal(second.result.templatesCommit, t0, 'the configuration change is pushed with the pinned templates')
    t.notMatch(await show('pin-dev', 'terraform/versions.tf'), /templates change one/)
    t.match(JSON.parse(await show('pin-dev', '.ies/generation.json')), { templatesCommit: t0 })

    const upgrade = await api('POST', '/environments/upgrade', { ids: [env.id] })
    t.equal(upgrade.status, 202, JSON.stringify(upgrade.body))
    const rollout = await rolloutDone(upgrade.body.data.rolloutId)
    t.equal(rollout.status, 'succeeded', JSON.stringify(rollout))
    t.match(await show('pin-dev', 'terraform/versions.tf'), /# templates change one\n$/)
    const after = (await api('GET', `/environments/${env.id}`)).body.data
    t.equal(after.templatesPin, t1, 'the upgrade moved the pin to the version it pushed')
    t.same(after.behind, { templates: false, configuration: false })

    const back = await api('POST', '/environments/upgrade', { ids: [env.id], to: 'no-such-tag' })
    t.match(back, { status: 400, body: { error: { details: [{ field: 'to' }] } } })
  })

  await t.test('waves are previewed and pushed in order, and stop at the first conflict', async (t) => {
    const envs = { dev: await create('shop-dev'), staging: await create('shop-staging'), prod: await create('shop-prod') }
    // Stranded: stored values the current catalog refuses (minimum above maximum), stored directly
    // (services as the record stores them: one JSON string) as an older catalog would have let them be.
    const stranded = await create('shop-old-dev')
    for (const env of [...Object.values(envs), stranded]) t.equal((await push(env.id)).status, 'succeeded')
    await app.mongo.db
      .collection<{ _id: string }>('environments')
      .updateOne(
        { _id: stranded.id },
        { $set: { services: JSON.stringify({ vpc: { enabled: true }, eks: { enabled: true, nodeMinSize: 10, nodeMaxSize: 5 } }) } },
      )
    // The customer edits staging where the next template change goes: that wave conflicts.
    const staging = await clone('shop-staging')
    await staging.append('terraform/versions.tf', '# the customer line')
    await staging.commitAndPush('customer: a line of our own')
    await changeTemplates('# templates change two')
    const prodBefore = await head('shop-prod')

    const status = (await api('GET', '/environments/upgrades')).body.data
    t.same(status.map((e: any) => e.name).sort(), ['pin-dev', 'shop-dev', 'shop-old-dev', 'shop-prod', 'shop-staging'])
    t.match(
      status.find((e: any) => e.name === 'pin-dev'),
      { templatesPin: /^[0-9a-f]{40}$/, behind: { templates: true, commits: 1 }, problems: [] },
      'a pinned environment is behind by the commits since its pin',
    )
    t.match(status.find((e: any) => e.name === 'shop-old-dev').problems, [{ field: /^services\.eks\.node(Min|Max)Size$/, reason: /\w/ }])

    const started = await api('POST', '/environments/upgrade', { pattern: 'shop-*', waves: ['*-dev', '*-staging', '*-prod'] })
    t.equal(started.status, 202, JSON.stringify(started.body))
    const rollout = await rolloutDone(started.body.data.rolloutId)
    t.equal(rollout.status, 'stopped')
    t.same(
      rollout.waves.map((w: any) => [w.pattern, w.status]),
      [
        ['*-dev', 'done'],
        ['*-staging', 'stopped'],
        ['*-prod', 'pending'],
      ],
    )
    t.match(rollout.waves[1].environments[0], { name: 'shop-staging', outcome: 'conflict', reason: /terraform\/versions\.tf/ })
    t.match(rollout.stopped, { wave: 1, reason: /^shop-staging: / })
    t.match(await show('shop-dev', 'terraform/versions.tf'), /# templates change two\n$/, 'the first wave was pushed')
    t.equal(await head('shop-prod'), prodBefore, 'the wave after the conflict was not started')
    t.ok(rollout.waves[0].environments[0].previewJobId && rollout.waves[0].environments[0].jobId, 'previewed, then pushed')
    t.same(
      rollout.waves[0].environments.map((e: any) => e.name),
      ['shop-dev'],
    )
    t.match(rollout.skipped, [{ name: 'shop-old-dev', reason: /^The templates refuse the stored value of services\.eks\.node/ }])

    const bad = await api('POST', '/environments/upgrade', { waves: [] })
    t.match(bad, { status: 400, body: { error: { details: [{ field: 'waves' }] } } })
    t.equal((await api('GET', '/environments/upgrade/no-such-rollout')).status, 404)
  })
})

t.test('a templates folder keeps the version an environment is pinned to while the folder changes', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const templates = await mkdtemp(path.join(os.tmpdir(), 'ies-pinned-dir-'))
  t.teardown(() => rm(templates, { recursive: true, force: true }))
  await cp(BUNDLED_TEMPLATES_DIR, templates, { recursive: true })
  const { url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEMPLATES_DIR: templates })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const api = jsonApi(url, dev)
  await git.createRepo('dir-pin', {})
  const body = {
    ...environmentBody({ name: 'dir-pin' }),
    gitRepository: { url: git.url('dir-pin'), branch: 'main', deployKey: DEPLOY_KEY },
  }
  const env = (await api('POST', '/environments', body)).body.data
  const push = async () => waitForJob(url, dev, (await api('POST', `/environments/${env.id}/push`, {})).body.data.id)
  const first = await push()
  t.equal(first.status, 'succeeded', JSON.stringify(first.error))
  const v0 = first.result.templatesCommit as string
  t.equal((await api('PUT', `/environments/${env.id}`, { templatesPin: v0 })).status, 200)
  t.match(await api('PUT', `/environments/${env.id}`, { templatesPin: 'sha256-not-a-version' }), {
    status: 400,
    body: { error: { details: [{ field: 'templatesPin', message: /templatesCommit of a generation or push/ }] } },
  })

  await appendFile(path.join(templates, 'terraform/versions.tf'), '# a folder change\n')
  t.equal((await api('PUT', `/environments/${env.id}`, { domain: 'dir.example.com' })).status, 200)
  const second = await push()
  t.equal(second.status, 'succeeded', JSON.stringify(second.error))
  t.equal(second.result.templatesCommit, v0, 'the pinned version, kept while the folder changed')
  t.notMatch((await git.git('dir-pin', ['show', 'main:terraform/versions.tf'])).toString(), /a folder change/)

  const upgrade = await api('POST', '/environments/upgrade', { ids: [env.id] })
  t.equal(upgrade.status, 202)
  const rollout = await rolloutEnded(api, upgrade.body.data.rolloutId)
  t.equal(rollout.status, 'succeeded', JSON.stringify(rollout))
  t.match((await git.git('dir-pin', ['show', 'main:terraform/versions.tf'])).toString(), /# a folder change\n$/)
  const after = (await api('GET', `/environments/${env.id}`)).body.data
  t.equal(after.templatesPin, rollout.templatesCommit, 'the pin moved to the folder version pushed')
  t.not(after.templatesPin, v0)
})
