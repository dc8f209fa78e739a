// The generated repository's lifecycle end to end: pushes that three-way merge instead of
// replacing, conflicts that leave the branch alone, pushes to a review branch, dry runs, the
// generation record, `lastPush`/`behind`, and the bulk upgrade. Real parts only: a git http-backend
// server holds both the templates (TEMPLATES_REPO, so a template upgrade is a commit pushed there)
// and the customers' repositories, and the git CLI plays the customer (clone, commit, push).
import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../../harness/app.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { environmentBody, waitForJob } from '../../../harness/jobs.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_bGlmZWN5Y2xlLWRlcGxveS1rZXk'
const BASIC = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
const IDENTITY = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid', '-c', `http.extraHeader=${BASIC}`]

t.test('the generated repository lifecycle', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
  const templatesUrl = git.url('templates', true)
  const { url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEMPLATES_REPO: templatesUrl })
  const headersOf = (user: 'dev' | 'other') => ({ ...auth(user), 'content-type': 'application/json' })
  const dev = headersOf('dev')

  const api = async (method: string, route: string, body?: unknown, headers = dev) => {
    const res = await fetch(`${url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const envWith = async (name: string, repo: string, headers = dev) => {
    const body = { ...environmentBody({ name }), gitRepository: { url: git.url(repo), branch: 'main', deployKey: DEPLOY_KEY } }
    const res = await api('POST', '/environments', body, headers)
    if (res.status !== 201) throw new Error(`environment ${name}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data as { id: string; lastPush: unknown; behind: unknown }
  }
  const push = async (envId: string, body: Record<string, unknown> = {}, headers = dev) => {
    const res = await api('POST', `/environments/${envId}/push`, body, headers)
    if (res.status !== 202) throw new Error(`push: ${res.status} ${JSON.stringify(res.body)}`)
    return waitForJob(url, headers, res.body.data.id)
  }
  const getEnv = async (envId: string, headers = dev) => (await api('GET', `/environments/${envId}`, undefined, headers)).body.data

  /** A clone of a repository on the git server, worked on with the git CLI as a customer would. */
  const checkout = async (repo: string, branch = 'main') => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `ies-customer-${repo}-`))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const gitIn = async (...args: string[]) => (await run('git', [...IDENTITY, ...args], { cwd: dir })).stdout
    await gitIn('clone', '-q', '--branch', branch, git.url(repo), '.')
    const file = (p: string) => path.join(dir, ...p.split('/'))
    return {
      git: gitIn,
      read: (p: string) => readFile(file(p), 'utf8'),
      has: (p: string) =>
        readFile(file(p)).then(
          () => true,
          () => false,
        ),
      write: async (p: string, content: string) => {
        await mkdir(path.dirname(file(p)), { recursive: true })
        await writeFile(file(p), content)
      },
      edit: async (p: string, change: (text: string) => string) => writeFile(file(p), change(await readFile(file(p), 'utf8'))),
      remove: (p: string) => rm(file(p)),
      commitAndPush: async (message: string) => {
        await gitIn('add', '-A')
        await gitIn('commit', '-q', '-m', message)
        await gitIn('push', '-q', 'origin', `HEAD:${branch}`)
      },
    }
  }
  /** A template upgrade: a commit pushed to the templates repository. */
  const upgradeTemplates = async (message: string, change: (templates: Awaited<ReturnType<typeof checkout>>) => Promise<void>) => {
    const templates = await checkout('templates')
    await change(templates)
    await templates.commitAndPush(message)
    return (await templates.git('rev-parse', 'HEAD')).trim()
  }
  const head = async (repo: string, ref = 'main') => (await git.git(repo, ['rev-parse', ref])).trim()
  const refs = (repo: string) => git.git(repo, ['for-each-ref', '--format=%(refname) %(objectname)'])

  await t.test("the customer's added file and edits survive pushes with configuration changes and template upgrades", async (t) => {
    await git.createRepo('life', { 'README.md': '# our platform\n', LICENSE: 'MIT\n' })
    const env = await envWith('life-main', 'life')
    t.same({ lastPush: env.lastPush, behind: env.behind }, { lastPush: null, behind: { templates: false, configuration: false } })

    const first = await push(env.id)
    t.equal(first.status, 'succeeded', JSON.stringify(first.error))
    t.match(first.result, { branch: 'main', strategy: 'merge', changed: true })
    let repo = await checkout('life')
    t.equal(await repo.read('README.md'), '# our platform\n', 'the first push into a repository with a README keeps it')
    t.equal(await repo.read('LICENSE'), 'MIT\n')
    t.ok(await repo.has('terraform/main.tf'))
    t.ok((await refs('life')).includes('refs/ies/generated/main'), 'the generated tree is kept under refs/ies/generated/main')
    const view = await getEnv(env.id)
    t.same(view.lastPush, {
      jobId: first.id,
      commit: first.result.commit,
      branch: 'main',
      templatesCommit: first.result.templatesCommit,
      pushedAt: view.lastPush.pushedAt,
    })
    t.same(view.behind, { templates: false, configuration: false })

    // The customer adds a file and edits a generated one.
    await repo.write('terraform/team.tf', '# our own module\nmodule "team" {}\n')
    await repo.edit('terraform/outputs.tf', (text) => `# reviewed by the platform team\n${text}`)
    await repo.commitAndPush('our additions')

    // 1: a configuration change.
    t.equal((await api('PUT', `/environments/${env.id}`, { domain: 'shop2.example.com' })).status, 200)
    t.same((await getEnv(env.id)).behind, { templates: false, configuration: true }, 'behind the configuration after an update')
    const second = await push(env.id)
    t.equal(second.status, 'succeeded', JSON.stringify(second.error))
    repo = await checkout('life')
    t.match(await repo.read('terraform/terraform.tfvars'), 'domain = "shop2.example.com"', 'the configuration change arrived')
    t.equal(await repo.read('terraform/team.tf'), '# our own module\nmodule "team" {}\n', 'the added file is kept')
    t.match(await repo.read('terraform/outputs.tf'), /^# reviewed by the platform team\n/, 'the edit is kept')
    t.match(
      await repo.git('log', '-1', '--format=%B'),
      /Configuration changed: domain\n[\s\S]*IES-Environment: [\s\S]*IES-Templates-Commit: /,
    )
    t.same((await getEnv(env.id)).behind, { templates: false, configuration: false })

    // 2: a template upgrade.
    const upgrade1 = await upgradeTemplates('templates: pin providers', (tpl) =>
      tpl.edit('terraform/versions.tf', (x) => `${x}# upgrade 1\n`),
    )
    t.same(
      (await getEnv(env.id)).behind,
      { templates: true, configuration: false, commits: 1 },
      'behind the templates after a template commit',
    )
    const third = await push(env.id)
    t.equal(third.status, 'succeeded', JSON.stringify(third.error))
    t.equal(third.result.templatesCommit, upgrade1)
    t.same((await getEnv(env.id)).behind, { templates: false, configuration: false }, 'and not behind after the push')
    repo = await checkout('life')
    t.match(await repo.read('terraform/versions.tf'), /# upgrade 1\n$/)
    const message = await repo.git('log', '-1', '--format=%B')
    t.match(message, `templates ${second.result.templatesCommit.slice(0, 12)} -> ${upgrade1.slice(0, 12)}`)
    t.match(message, `IES-Templates-Commit: ${upgrade1}`)
    t.match(message, `IES-Environment: ${env.id}`)

    // 3: both at once, the template upgrade in the file the customer edited (other lines).
    await upgradeTemplates('templates: document outputs', (tpl) => tpl.edit('terraform/outputs.tf', (x) => `${x}# upgrade 2\n`))
    t.equal((await api('PUT', `/environments/${env.id}`, { region: 'eu-west-1' })).status, 200)
    t.same((await getEnv(env.id)).behind, { templates: true, configuration: true, commits: 1 })
    const fourth = await push(env.id)
    t.equal(fourth.status, 'succeeded', JSON.stringify(fourth.error))
    repo = await checkout('life')
    const outputs = await repo.read('terraform/outputs.tf')
    t.match(outputs, /^# reviewed by the platform team\n/, "the customer's line is kept")
    t.match(outputs, /# upgrade 2\n$/, "and the templates' line merged into the same file")
    t.equal(await repo.read('terraform/team.tf'), '# our own module\nmodule "team" {}\n')
    t.equal(await repo.read('README.md'), '# our platform\n')
    t.match(await repo.read('terraform/versions.tf'), /# upgrade 1\n$/)

    const record = JSON.parse(await repo.read('.ies/generation.json'))
    t.match(record, {
      schemaVersion: 1,
      environmentId: env.id,
      environmentName: 'life-main',
      templatesCommit: fourth.result.templatesCommit,
      format: 'terraform',
      options: { includeBackend: true, includeChart: true, includeGitops: true },
      input: { name: 'life-main', region: 'eu-west-1', domain: 'shop2.example.com' },
      generatedAt: String,
      iesVersion: String,
    })
    const again = await push(env.id)
    t.match(
      again.result,
      { changed: false, commit: fourth.result.commit },
      'an unchanged generation pushes nothing (the record keeps its time)',
    )
  })

  await t.test(
    'a conflict leaves the branch untouched; a dry run writes nothing; strategy "branch" pushes the merge for review',
    async (t) => {
      await git.createRepo('clash', { 'README.md': '# clash\n' })
      const env = await envWith('clash-main', 'clash')
      t.equal((await push(env.id)).status, 'succeeded')
      const repo = await checkout('clash')
      const original = (await repo.read('terraform/providers.tf')).split('\n')[0]
      await repo.edit('terraform/providers.tf', (x) => x.replace(/^.*\n/, '# customer: our provider\n'))
      await repo.commitAndPush('customer edit of the first line')
      await upgradeTemplates('templates: providers header', (tpl) =>
        tpl.edit('terraform/providers.tf', (x) => x.replace(/^.*\n/, '# templates: new provider\n')),
      )
      const before = await refs('clash')

      const failed = await push(env.id)
      t.equal(failed.status, 'failed')
      t.equal(failed.error?.code, 'PUSH_CONFLICT')
      t.match(failed.error?.message, 'terraform/providers.tf')
      const conflict = failed.error?.details?.conflicts?.find((c: any) => c.file === 'terraform/providers.tf')
      t.same(conflict, {
        file: 'terraform/providers.tf',
        kind: 'content',
        hunks: [{ line: 1, ours: '# customer: our provider\n', base: `${original}\n`, theirs: '# templates: new provider\n' }],
      })
      t.equal(await refs('clash'), before, 'the branch and the generated ref are untouched')

      const preview = await push(env.id, { dryRun: true })
      t.equal(preview.status, 'succeeded', JSON.stringify(preview.error))
      t.match(preview.result, { dryRun: true, branch: 'main', strategy: 'merge', templatesCommit: String })
      const change = preview.result.changes.find((c: any) => c.path === 'terraform/providers.tf')
      t.match(change, { change: 'conflict', truncated: false, diff: /<<<<<<< main\n/ })
      t.same(
        preview.result.conflicts.map((c: any) => c.file),
        ['terraform/providers.tf'],
      )
      t.equal(await refs('clash'), before, 'the dry run wrote nothing')
      t.equal((await getEnv(env.id)).lastPush.jobId !== preview.id, true, 'a dry run is no push')

      const review = await push(env.id, { strategy: 'branch' })
      t.equal(review.status, 'succeeded', JSON.stringify(review.error))
      t.match(review.result, { strategy: 'branch', branch: /^ies\/update-[0-9a-f]{8}$/, changed: true })
      t.same(
        review.result.conflicts.map((c: any) => c.file),
        ['terraform/providers.tf'],
      )
      t.match(before, `refs/heads/main ${await head('clash')}\n`, 'main is untouched')
      const proposal = await checkout('clash', review.result.branch)
      t.match(
        await proposal.read('terraform/providers.tf'),
        /^<<<<<<< main\n# customer: our provider\n\|\|\|\|\|\|\| last generation\n.*\n=======\n# templates: new provider\n>>>>>>> new generation\n/,
      )
      t.equal(await proposal.read('README.md'), '# clash\n')
    },
  )

  await t.test('a file removed from the templates is removed when untouched and kept, as a conflict, when edited', async (t) => {
    await git.createRepo('removal', {})
    await upgradeTemplates('templates: two extra files', async (tpl) => {
      await tpl.write('terraform/extra_a.tf', '# extra a\n')
      await tpl.write('terraform/extra_b.tf', '# extra b\n')
    })
    const env = await envWith('removal-main', 'removal')
    t.equal((await push(env.id)).status, 'succeeded')
    let repo = await checkout('removal')
    t.ok((await repo.has('terraform/extra_a.tf')) && (await repo.has('terraform/extra_b.tf')))

    await upgradeTemplates('templates: drop extra a', (tpl) => tpl.remove('terraform/extra_a.tf'))
    t.equal((await push(env.id)).status, 'succeeded')
    repo = await checkout('removal')
    t.notOk(await repo.has('terraform/extra_a.tf'), 'the untouched file is removed')

    await repo.edit('terraform/extra_b.tf', (x) => `${x}# tuned by us\n`)
    await repo.commitAndPush('tune extra b')
    const before = await head('removal')
    await upgradeTemplates('templates: drop extra b', (tpl) => tpl.remove('terraform/extra_b.tf'))
    const failed = await push(env.id)
    t.equal(failed.error?.code, 'PUSH_CONFLICT')
    t.same(failed.error?.details?.conflicts, [
      {
        file: 'terraform/extra_b.tf',
        kind: 'deleted-in-templates',
        hunks: [{ line: 1, ours: '# extra b\n# tuned by us\n', base: '# extra b\n', theirs: '' }],
      },
    ])
    t.equal(await head('removal'), before, 'the branch is untouched')
    const review = await push(env.id, { strategy: 'branch' })
    t.equal(review.status, 'succeeded')
    const proposal = await checkout('removal', review.result.branch)
    t.equal(await proposal.read('terraform/extra_b.tf'), '# extra b\n# tuned by us\n', 'the edited file is kept')
  })

  await t.test('the generation record holds no secret', async (t) => {
    await git.createRepo('record', {})
    const cloudSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYRECORDCANARY'
    const credential = await api('POST', '/cloud-credentials', {
      name: 'record-aws',
      provider: 'aws',
      credentials: { accessKeyId: 'AKIAIOSFODNN7RECORD1', secretAccessKey: cloudSecret, region: 'eu-central-1' },
    })
    t.equal(credential.status, 201, JSON.stringify(credential.body))
    const env = await envWith('record-main', 'record')
    t.equal((await api('PUT', `/environments/${env.id}`, { cloudCredentialId: credential.body.data.id })).status, 200)
    const done = await push(env.id)
    const repo = await checkout('record')
    const text = await repo.read('.ies/generation.json')
    for (const secret of [DEPLOY_KEY, BASIC.split(' ').pop()!, cloudSecret, 'AKIAIOSFODNN7RECORD1', 'deployKey', 'PRIVATE KEY']) {
      t.notMatch(text, secret)
      t.equal(await repo.git('grep', '-c', '-F', secret, 'HEAD').catch(() => ''), '', `nowhere in the pushed tree: ${secret.slice(0, 8)}…`)
    }
    t.equal(JSON.parse(text).templatesCommit, done.result.templatesCommit)

    const generated = await api('POST', `/environments/${env.id}/generate?wait=true`, { format: 'terraform' })
    t.equal(generated.status, 200)
    const archived = JSON.parse(generated.body.data.files['.ies/generation.json'])
    t.match(archived, { schemaVersion: 1, environmentId: env.id, format: 'terraform', input: { name: 'record-main' } })
    t.notMatch(JSON.stringify(archived), DEPLOY_KEY)
    t.notMatch(JSON.stringify(archived), cloudSecret)

    // Pushing that generation after a configuration change: the push is of the older input.
    t.equal((await api('PUT', `/environments/${env.id}`, { domain: 'later.example.com' })).status, 200)
    const reused = await push(env.id, { generationJobId: generated.body.data.jobId })
    t.equal(reused.status, 'succeeded', JSON.stringify(reused.error))
    const view = await getEnv(env.id)
    t.equal(view.lastPush.jobId, reused.id)
    t.same(view.behind, { templates: false, configuration: true }, 'still behind the configuration it did not push')
  })

  await t.test('the bulk upgrade pushes only what is behind, and a conflict stops no other', async (t) => {
    const other = headersOf('other')
    await git.createRepo('bulk-a', {})
    await git.createRepo('bulk-b', {})
    await git.createRepo('bulk-c', {})
    await git.createRepo('bulk-d', {})
    const a = await envWith('bulk-a', 'bulk-a', other)
    const b = await envWith('bulk-b', 'bulk-b', other)
    const c = await envWith('bulk-c', 'bulk-c', other)
    const d = await envWith('bulk-d', 'bulk-d', other)
    t.equal((await push(a.id, { format: 'helm' }, other)).status, 'succeeded')
    t.equal((await push(d.id, {}, other)).status, 'succeeded')
    const customer = await checkout('bulk-d')
    await customer.edit('terraform/variables.tf', (x) => x.replace(/^.*\n/, '# customer header\n'))
    await customer.commitAndPush('customer header')
    await upgradeTemplates('templates: bulk', async (tpl) => {
      await tpl.edit('terraform/variables.tf', (x) => x.replace(/^.*\n/, '# templates header\n'))
      await tpl.edit('charts/headlamp/values.yaml', (x) => `${x}# bulk upgrade\n`)
    })
    t.equal((await push(b.id, {}, other)).status, 'succeeded', 'b is pushed after the template commit')

    const listed = await api('GET', '/environments/upgrades', undefined, other)
    t.equal(listed.status, 200)
    t.same(listed.body.data.map((e: any) => e.id).sort(), [a.id, d.id].sort(), 'only the pushed environments that are behind')
    t.match(
      listed.body.data.find((e: any) => e.id === a.id),
      { name: 'bulk-a', behind: { templates: true, configuration: false }, lastPush: { branch: 'main' } },
    )

    const bBefore = await head('bulk-b')
    const started = await api('POST', '/environments/upgrade', {}, other)
    t.equal(started.status, 202)
    t.same(started.body.data.jobs.map((j: any) => j.environmentId).sort(), [a.id, d.id].sort())
    const results = new Map<string, any>()
    for (const job of started.body.data.jobs) results.set(job.environmentId, await waitForJob(url, other, job.jobId))
    t.equal(results.get(a.id).status, 'succeeded', JSON.stringify(results.get(a.id).error))
    t.equal(results.get(d.id).error?.code, 'PUSH_CONFLICT', 'the conflicting environment fails alone')
    const upgraded = await checkout('bulk-a')
    t.match(await upgraded.read('charts/headlamp/values.yaml'), /# bulk upgrade\n$/)
    t.notOk(await upgraded.has('terraform/main.tf'), 'an upgrade generates what the last push generated (helm)')
    t.equal(await head('bulk-b'), bBefore, 'b, not behind, was not pushed')
    t.same(
      (await api('GET', '/environments/upgrades', undefined, other)).body.data.map((e: any) => e.id),
      [d.id],
      'only the conflicting environment is still behind',
    )

    const byId = await api('POST', '/environments/upgrade', { ids: [c.id, 'no-such-environment', a.id], dryRun: true }, other)
    t.equal(byId.status, 202)
    t.same(
      byId.body.data.jobs.map((j: any) => j.environmentId),
      [c.id, a.id],
      'the ids given, behind or not',
    )
    t.same(byId.body.data.skipped, [{ environmentId: 'no-such-environment', reason: 'not found' }])
    for (const job of byId.body.data.jobs) t.match((await waitForJob(url, other, job.jobId)).result, { dryRun: true })
    t.equal(
      (await api('POST', '/environments/upgrade', { ids: [a.id] })).body.data.skipped[0].reason,
      'not found',
      "another user's environment",
    )
    const badIds = await api('POST', '/environments/upgrade', { ids: [{ id: 1 }] }, other)
    t.match(badIds, { status: 400, body: { error: { code: 'VALIDATION_ERROR', details: [{ field: /^ids/ }] } } })
    const badStrategy = await api('POST', '/environments/upgrade', { strategy: 'rebase' }, other)
    t.match(badStrategy, { status: 400, body: { error: { details: [{ field: 'strategy' }] } } })
    const badPush = await api('POST', `/environments/${a.id}/push`, { dryRun: 'maybe' }, other)
    t.match(badPush, { status: 400, body: { error: { details: [{ field: 'dryRun' }] } } })
  })
})

t.test('behind.templates follows a TEMPLATES_DIR change too', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const templates = await mkdtemp(path.join(os.tmpdir(), 'ies-templates-dir-'))
  t.teardown(() => rm(templates, { recursive: true, force: true }))
  await cp(BUNDLED_TEMPLATES_DIR, templates, { recursive: true })
  const { app, url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEMPLATES_DIR: templates })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  await git.createRepo('dir', {})
  const body = { ...environmentBody({ name: 'dir-main' }), gitRepository: { url: git.url('dir'), branch: 'main', deployKey: DEPLOY_KEY } }
  const env = ((await (await fetch(`${url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(body) })).json()) as any)
    .data
  const pushed = async () => {
    const job = (
      (await (await fetch(`${url}/api/environments/${env.id}/push`, { method: 'POST', headers: dev, body: '{}' })).json()) as any
    ).data
    return waitForJob(url, dev, job.id)
  }
  const behind = async () => ((await (await fetch(`${url}/api/environments/${env.id}`, { headers: dev })).json()) as any).data.behind
  const first = await pushed()
  t.equal(first.status, 'succeeded', JSON.stringify(first.error))
  t.same(await behind(), { templates: false, configuration: false })
  await writeFile(
    path.join(templates, 'terraform', 'versions.tf'),
    `${await readFile(path.join(templates, 'terraform', 'versions.tf'), 'utf8')}# dir upgrade\n`,
  )
  t.same(await behind(), { templates: true, configuration: false }, 'a changed templates folder is a new templates commit')
  const second = await pushed()
  t.equal(second.status, 'succeeded', JSON.stringify(second.error))
  t.not(second.result.templatesCommit, first.result.templatesCommit)
  t.same(await behind(), { templates: false, configuration: false })
  t.match(await git.git('dir', ['show', 'main:terraform/versions.tf']), /# dir upgrade\n$/)

  const records = app.mongo.db.collection('environmentPushes')
  t.equal(await records.countDocuments({ environmentId: env.id }), 2, 'the last push, of the environment and of its branch')
  t.equal((await fetch(`${url}/api/environments/${env.id}`, { method: 'DELETE', headers: auth('dev') })).status, 204)
  t.equal(await records.countDocuments({ environmentId: env.id }), 0, 'gone with the environment')
})
