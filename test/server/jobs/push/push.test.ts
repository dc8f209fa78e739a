// Push end to end against a real Git server (git http-backend behind a loopback server with Basic
// auth): the deploy key (an access token) is the HTTP password, the generation is merged into the
// branch in one commit (push-merge.test.ts tests the merge itself), and the plain git CLI clones the
// pushed commit and finds the generated files. Every environment is
// made through the API: the loopback server's http:// URL is accepted because PUSH_ALLOWED_HOSTS
// names 127.0.0.1. Refused destinations answer 400; a PEM key fails the job with a clear error.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { startTestApp } from '../../../harness/app.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { environmentBody, waitForJob } from '../../../harness/jobs.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_c2VjcmV0LWRlcGxveS1rZXktZm9yLXRlc3Rz'
const PEM_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nc2VjcmV0LXNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----\n'

async function listFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = []
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    if (e.name === '.git') continue
    const p = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) out.push(...(await listFiles(dir, p)))
    else out.push(p)
  }
  return out.sort()
}

t.test('push', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  const { app, url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1' })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }

  /** An environment made through POST /api/environments (the record as the API returns it). */
  const envWith = async (name: string, gitRepository: Record<string, unknown> | undefined, deployKey: string | null = DEPLOY_KEY) => {
    const body = {
      ...environmentBody({ name }),
      ...(gitRepository && { gitRepository: { ...gitRepository, ...(deployKey && { deployKey }) } }),
    }
    const res = await fetch(`${url}/api/environments`, { method: 'POST', headers: dev, body: JSON.stringify(body) })
    const created = (await res.json()) as any
    if (res.status !== 201) throw new Error(`environment ${name}: ${res.status} ${JSON.stringify(created)}`)
    return created.data as { id: string; gitRepository?: { hasDeployKey: boolean } }
  }

  const remote = await git.createRepo('customer', { 'README.md': '# shop\n', 'old/stale.tf': 'old = true\n' })
  const push = (envId: string, body: unknown = {}, headers = dev) =>
    fetch(`${url}/api/environments/${envId}/push`, { method: 'POST', headers, body: JSON.stringify(body) })
  // The plain git CLI, authenticated like any client.
  const basic = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
  const gitClone = (branch: string, dir: string) =>
    run('git', ['-c', `http.extraHeader=${basic}`, 'clone', '-q', '--branch', branch, git.url('customer'), dir])
  const cloneDir = async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-push-clone-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    return dir
  }

  await t.test('generates, merges into the branch in one commit, pushes; git clones it', async (t) => {
    const env = await envWith('push-main', { url: remote, branch: 'main' })
    const before = (await git.git('customer', ['rev-parse', 'main'])).trim()
    const res = await push(env.id)
    t.equal(res.status, 202)
    const job = ((await res.json()) as any).data
    t.match(job, { type: 'push', status: 'queued' })
    const done = await waitForJob(url, dev, job.id)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.match(done.result, { commit: /^[0-9a-f]{40}$/, branch: 'main', changed: true, url: remote })

    const dir = await cloneDir()
    await gitClone('main', dir)
    const head = (await run('git', ['rev-parse', 'HEAD'], { cwd: dir })).stdout.trim()
    t.equal(head, done.result.commit, 'the branch points at the pushed commit')
    t.equal((await run('git', ['rev-parse', 'HEAD^'], { cwd: dir })).stdout.trim(), before, 'on top of the previous tip')
    const files = await listFiles(dir)
    for (const f of [
      'terraform/main.tf',
      'terraform/backend.tf',
      'terraform/terraform.tfvars',
      '.github/workflows/terraform.yml',
      'charts/headlamp/values.yaml',
      'gitops/headlamp.yaml',
    ]) {
      t.ok(files.includes(f), `has ${f}`)
    }
    t.ok(files.includes('old/stale.tf') && files.includes('README.md'), 'the first push keeps the files the generation does not produce')
    t.ok(files.includes('.ies/generation.json'), 'with the generation record')
    t.match(await readFile(path.join(dir, 'terraform/backend.tf'), 'utf8'), `env/${env.id}/aws.tfstate`)
    const { stdout: log } = await run('git', ['log', '-1', '--format=%an <%ae>%n%s'], { cwd: dir })
    t.match(log, /^IES <ies@localhost>\nGenerate push-main \(terraform\) from templates [0-9a-f]+/)
    const { stdout: grep } = await run('git', ['grep', '-c', 'PRIVATE KEY', 'HEAD'], { cwd: dir }).catch((e) => e)
    t.equal(grep.trim(), '', 'no deploy key in the pushed tree')

    const again = await waitForJob(url, dev, ((await (await push(env.id)).json()) as any).data.id)
    t.match(again.result, { changed: false, commit: done.result.commit }, 'an unchanged tree pushes nothing')
  })

  await t.test('pushes the files of a given generation job, to a new branch', async (t) => {
    const env = await envWith('push-reuse', { url: remote, branch: 'ies/helm' })
    const generated = await waitForJob(
      url,
      dev,
      (
        (await (
          await fetch(`${url}/api/environments/${env.id}/generate`, {
            method: 'POST',
            headers: dev,
            body: JSON.stringify({ format: 'helm' }),
          })
        ).json()) as any
      ).data.id,
    )
    t.equal(generated.status, 'succeeded')
    const done = await waitForJob(url, dev, ((await (await push(env.id, { generationJobId: generated.id })).json()) as any).data.id)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.match(done.result, { branch: 'ies/helm', generationJobId: generated.id })
    const dir = await cloneDir()
    await gitClone('ies/helm', dir)
    t.same(await listFiles(dir), [
      '.ies/generation.json',
      'charts/argo-cd/values.yaml',
      'charts/headlamp/values.yaml',
      'charts/kube-prometheus-stack/values.yaml',
    ])
    t.equal(
      (await run('git', ['rev-list', '--count', 'HEAD'], { cwd: dir })).stdout.trim(),
      '1',
      'a new branch starts with the generated commit',
    )

    const other = await envWith('push-other', { url: remote, branch: 'main' })
    t.equal((await push(other.id, { generationJobId: generated.id })).status, 400, "another environment's generation is refused")
  })

  await t.test('a wrong deploy key fails the job without revealing it', async (t) => {
    const wrong = 'iest_d3Jvbmcta2V5'
    const env = await envWith('push-wrong-key', { url: remote, branch: 'main' }, wrong)
    const done = await waitForJob(url, dev, ((await (await push(env.id)).json()) as any).data.id)
    t.equal(done.status, 'failed')
    t.equal(done.error?.code, 'GIT_UNAUTHORIZED')
    t.notMatch(JSON.stringify(done), 'd3Jvbmcta2V5')
    t.notMatch(JSON.stringify(await app.jobs.store.byId(done.id)), 'd3Jvbmcta2V5', 'the stored job holds no key either')
  })

  await t.test('an SSH (PEM) deploy key fails the push with a clear error', async (t) => {
    const env = await envWith('push-pem-key', { url: remote, branch: 'main' }, PEM_KEY)
    t.equal(env.gitRepository?.hasDeployKey, true, 'a PEM key is still accepted and stored')
    const before = (await git.git('customer', ['rev-parse', 'main'])).trim()
    const done = await waitForJob(url, dev, ((await (await push(env.id)).json()) as any).data.id)
    t.equal(done.status, 'failed')
    t.same(done.error, {
      code: 'DEPLOY_KEY_NOT_USABLE',
      message: 'An SSH deploy key cannot authenticate an HTTPS push; store an access token',
    })
    t.notMatch(JSON.stringify(await app.jobs.store.byId(done.id)), 'PRIVATE KEY', 'the stored job holds no key')
    t.equal((await git.git('customer', ['rev-parse', 'main'])).trim(), before, 'nothing was pushed')
  })

  await t.test('refused destinations and requests', async (t) => {
    // Stored before the save-time check existed (written to the database directly: the API refuses
    // them now, below), refused again when the push is asked for; and requests that lack a part.
    const cases: [string, Record<string, unknown> | undefined, string | null, string, string?][] = [
      [
        'push-private',
        { url: 'https://git.example.com/acme/shop.git' },
        DEPLOY_KEY,
        'gitRepository.url',
        'https://10.20.30.40/acme/shop.git',
      ],
      [
        'push-loopback',
        { url: 'https://git.example.com/acme/shop.git' },
        DEPLOY_KEY,
        'gitRepository.url',
        'https://127.0.0.2/acme/shop.git',
      ],
      [
        'push-link-local',
        { url: 'https://git.example.com/acme/shop.git' },
        DEPLOY_KEY,
        'gitRepository.url',
        'https://[fe80::1]/acme/shop.git',
      ],
      ['push-no-repo', undefined, null, 'gitRepository'],
      ['push-no-key', { url: 'https://git.example.com/acme/shop.git' }, null, 'gitRepository.deployKey'],
    ]
    for (const [name, gitRepository, key, field, storedUrl] of cases) {
      const env = await envWith(name, gitRepository, key)
      if (storedUrl)
        await app.mongo.db.collection('environments').updateOne({ _id: env.id as never }, { $set: { 'gitRepository.url': storedUrl } })
      const res = await push(env.id)
      const body = (await res.json()) as any
      t.equal(res.status, 400, name)
      t.equal(body.error?.details?.[0]?.field, field, `${name}: ${body.error?.details?.[0]?.message}`)
    }
    // Refused by the API already: SSH URLs, http:// to a host PUSH_ALLOWED_HOSTS does not name, and
    // addresses that are not public (the push's own rule, applied when the environment is saved).
    for (const [name, repoUrl] of [
      ['push-private-saved', 'https://10.20.30.40/acme/shop.git'],
      ['push-loopback-saved', 'https://127.0.0.2/acme/shop.git'],
      ['push-link-local-saved', 'https://[fe80::1]/acme/shop.git'],
      ['push-ssh', 'git@github.com:acme/shop.git'],
      ['push-ssh-url', 'ssh://git@github.com/acme/shop.git'],
      ['push-http-elsewhere', 'http://git.example.com/acme/shop.git'],
    ]) {
      const res = await fetch(`${url}/api/environments`, {
        method: 'POST',
        headers: dev,
        body: JSON.stringify({ ...environmentBody({ name }), gitRepository: { url: repoUrl, deployKey: DEPLOY_KEY } }),
      })
      const body = (await res.json()) as any
      t.equal(res.status, 400, name)
      t.equal(body.error?.details?.[0]?.field, 'gitRepository.url', `${name}: ${body.error?.details?.[0]?.message}`)
      t.notMatch(JSON.stringify(body), DEPLOY_KEY, `${name}: the key is not echoed`)
    }
    const env = await envWith('push-foreign', { url: remote, branch: 'main' })
    t.equal(
      (await push(env.id, {}, { ...auth('other'), 'content-type': 'application/json' })).status,
      404,
      "another user's environment: 404",
    )
  })
})
