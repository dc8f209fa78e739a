// The processor service's GET /catalog?url=… over real HTTP: the catalog of a templates repository
// (a real git http-backend with Basic auth, behind a proxy that records what each git request was
// for), at the commit POST /process-git-download generates from. One ls-remote per request, a clone
// only when main moved (concurrent requests share it); a cached catalog is never served to a caller
// the git host refuses; the repository password is in no response, log line or logged URL.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { buildProcessorService, type Catalog } from '@ies/processor-lib'
import { loggableUrl } from '@ies/processor-lib/service/app'
import { startGitServer } from '../harness/git-server.ts'
import { startGitProxy } from '../harness/git-proxy.ts'
import { logLines } from '../harness/log-lines.ts'
import { GIT_ENV } from '../harness/git-env.ts'

const run = promisify(execFile)
const TOKEN = 'svc-token-repo-catalog-3c9e1f'
const PASSWORD = 'repo-pass-canary-94d0b7'
const TFVARS = '# @module services.eks | displayName=EKS\n# @param name | displayName=Name\nname = "demo"\n'
const TEMPLATES = {
  'terraform/terraform.tfvars': TFVARS,
  'terraform/main.tf': 'x = 1\n',
  'sub/terraform/terraform.tfvars': '# @param region\nregion = "x"\n',
}
const config = { name: 'acme', services: {} }
const basic = (u: string, p: string) => 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64')

t.test('GET /catalog of a templates repository', async (t) => {
  const git = await startGitServer({ username: 'ies', password: PASSWORD })
  t.teardown(() => git.stop())
  await git.createRepo('templates', TEMPLATES)
  await git.createRepo('no-params', { 'README.md': 'x\n' })
  const proxy = await startGitProxy(git.baseUrl)
  t.teardown(() => proxy.stop())
  const repoUrl = `${proxy.baseUrl}/templates.git`

  const { lines: logged, logStream } = logLines()
  const app = await buildProcessorService({ token: TOKEN, allowedHosts: ['127.0.0.1'], logger: { stream: logStream, level: 'trace' } })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())

  const bodies: string[] = []
  const catalog = async (query: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/catalog?${new URLSearchParams(query)}`, {
      headers: { 'x-service-token': TOKEN, 'x-templates-authorization': basic('ies', PASSWORD), ...headers },
    })
    const text = await res.text()
    bodies.push(text)
    return { status: res.status, etag: res.headers.get('etag'), text, json: () => JSON.parse(text) }
  }
  const fetches = () => proxy.calls.filter((c) => c.kind === 'fetch').length
  const lsRefs = () => proxy.calls.filter((c) => c.kind === 'ls-refs').length
  const head = async () => (await git.git('templates', ['rev-parse', 'main'])).trim()

  let firstEtag = ''
  await t.test("the catalog at main's commit, the commit POST /process-git-download generates from", async (t) => {
    const res = await catalog({ url: repoUrl })
    t.equal(res.status, 200, res.text)
    const doc = res.json() as Catalog
    t.equal(doc.commit, await head())
    t.equal(res.etag, `"${doc.commit}"`)
    t.same(Object.keys(doc.services), ['eks'])
    t.same(Object.keys(doc.global.fields), ['name'])
    t.equal(fetches(), 1, 'one clone')
    const gen = await fetch(`${base}/process-git-download`, {
      method: 'POST',
      headers: { 'x-service-token': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ url: repoUrl, username: 'ies', password: PASSWORD, config }),
    })
    t.equal(gen.status, 200)
    t.equal(gen.headers.get('x-templates-commit'), doc.commit, "X-Templates-Commit is the catalog's ETag")
    firstEtag = res.etag!
  })

  await t.test('unchanged main: 304 for the current ETag, 200 from the cache otherwise; one ls-remote each, no clone', async (t) => {
    const before = { fetches: fetches(), lsRefs: lsRefs() }
    const same = await catalog({ url: repoUrl }, { 'if-none-match': firstEtag })
    t.equal(same.status, 304)
    t.equal(same.etag, firstEtag)
    t.equal(same.text, '')
    const other = await catalog({ url: repoUrl, branch: 'main' }, { 'if-none-match': '"something-else"' })
    t.equal(other.status, 200)
    t.equal(other.etag, firstEtag)
    t.equal(fetches(), before.fetches, 'nothing fetched')
    t.equal(lsRefs(), before.lsRefs + 2, 'one ref listing per request')
    const authorized = proxy.calls.filter((c) => c.authorization)
    t.ok(
      authorized.length > 0 && authorized.every((c) => c.authorization === basic('ies', PASSWORD)),
      "the caller's credentials reach the git host",
    )
  })

  await t.test('a new commit on main: the next request gets it (one clone), and 304 no more for the old ETag', async (t) => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'ies-repo-catalog-work-'))
    t.teardown(() => rm(work, { recursive: true, force: true }))
    await run('git', ['clone', '-q', path.join(git.reposDir, 'templates.git'), work], { env: GIT_ENV })
    await writeFile(path.join(work, 'terraform/terraform.tfvars'), TFVARS + '# @param region | displayName=Region\nregion = "eu-west-1"\n')
    await run('git', ['commit', '-qam', 'templates: region'], { cwd: work, env: GIT_ENV })
    await run('git', ['push', '-q', 'origin', 'main'], { cwd: work, env: GIT_ENV })
    const before = fetches()
    const results = await Promise.all([1, 2, 3].map(() => catalog({ url: repoUrl }, { 'if-none-match': firstEtag })))
    for (const res of results) {
      t.equal(res.status, 200)
      t.equal(res.etag, `"${await head()}"`)
      t.same(Object.keys(res.json().global.fields), ['name', 'region'])
    }
    t.equal(fetches(), before + 1, 'three concurrent requests, one clone')
    t.equal((await catalog({ url: repoUrl }, { 'if-none-match': results[0].etag! })).status, 304)
  })

  await t.test('subdir and provider', async (t) => {
    const sub = await catalog({ url: repoUrl, subdir: 'sub' })
    t.equal(sub.status, 200)
    t.same(Object.keys(sub.json().global.fields), ['region'])
    t.equal(sub.etag, `"${await head()}"`, "the repository's commit, as X-Templates-Commit")
    const unknown = await catalog({ url: repoUrl, provider: 'azure' })
    t.equal(unknown.status, 400)
    t.equal(unknown.json().error.code, 'UNKNOWN_PROVIDER')
    const missing = await catalog({ url: `${proxy.baseUrl}/no-params.git` })
    t.equal(missing.status, 404)
    t.equal(missing.json().error.code, 'MISSING_PARAMS_FILE')
  })

  await t.test('refused by the git host: 400, and the cached catalog is not served', async (t) => {
    for (const [name, headers] of [
      ['wrong password', { 'x-templates-authorization': basic('ies', 'wrong-' + PASSWORD.slice(0, 4)) }],
      ['no credentials', { 'x-templates-authorization': '' }],
    ] as const) {
      const h: Record<string, string> = { ...headers }
      const res = await (h['x-templates-authorization'] === ''
        ? fetch(`${base}/catalog?url=${encodeURIComponent(repoUrl)}`, { headers: { 'x-service-token': TOKEN } }).then(async (r) => ({
            status: r.status,
            text: await r.text(),
          }))
        : catalog({ url: repoUrl }, h))
      bodies.push(res.text)
      t.equal(res.status, 400, name)
      t.equal(JSON.parse(res.text).error.code, 'CLONE_FAILED', name)
      t.notMatch(res.text, /"services"/, `${name}: no catalog`)
    }
    const noBranch = await catalog({ url: repoUrl, branch: 'nope' })
    t.equal(noBranch.status, 400)
    t.equal(noBranch.json().error.code, 'CLONE_FAILED')
  })

  await t.test('git host unreachable: 502, so a caller may treat it as an outage', async (t) => {
    proxy.down = true
    t.teardown(() => (proxy.down = false))
    const res = await catalog({ url: repoUrl })
    t.equal(res.status, 502)
    t.equal(res.json().error.code, 'CLONE_FAILED')
  })

  await t.test('the URL is checked as for POST /process-git-download, and carries no credentials', async (t) => {
    const cases: [string, Record<string, string>, Record<string, string>?][] = [
      ['file URL', { url: 'file:///etc' }],
      ['not a URL', { url: 'templates' }],
      ['credentials in the URL', { url: repoUrl.replace('http://', `http://ies:${PASSWORD}@`) }],
      ['subdir outside', { url: repoUrl, subdir: '../x' }],
      ['bad branch', { url: repoUrl, branch: 'a b' }],
      ['branch without url', { branch: 'main' }],
      ['malformed X-Templates-Authorization', { url: repoUrl }, { 'x-templates-authorization': 'Bearer x' }],
    ]
    for (const [name, query, headers] of cases) {
      const res = await catalog(query, headers)
      t.equal(res.status, 400, name)
      t.equal(res.json().error.code, 'BAD_REQUEST', name)
    }
    const noToken = await fetch(`${base}/catalog?url=${encodeURIComponent(repoUrl)}`, {
      headers: { 'x-templates-authorization': basic('ies', PASSWORD) },
    })
    t.equal(noToken.status, 401, 'the service token is required')
  })

  await t.test('the password is in no response, log line or logged URL', async (t) => {
    t.ok(
      logged.some((l) => l.includes('/catalog?url=')),
      'requests were logged',
    )
    t.ok(
      logged.some((l) => l.includes(encodeURIComponent('http://[redacted]@'))),
      'the URL that carried credentials was logged without them',
    )
    for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), TOKEN]) {
      t.notOk(
        bodies.some((b) => b.includes(secret)),
        `no response holds ${secret.slice(0, 10)}…`,
      )
      t.notOk(
        logged.some((l) => l.includes(secret)),
        `no log line holds ${secret.slice(0, 10)}…`,
      )
    }
  })
})

t.test('loggableUrl drops a user and password from URL-valued query parameters only', async (t) => {
  t.equal(loggableUrl('/catalog'), '/catalog')
  t.equal(loggableUrl('/catalog?url=http%3A%2F%2Fh%2Fr.git&branch=main'), '/catalog?url=http%3A%2F%2Fh%2Fr.git&branch=main')
  t.equal(
    loggableUrl(`/catalog?url=${encodeURIComponent('https://u:p@h/r.git')}`),
    `/catalog?url=${encodeURIComponent('https://[redacted]@h/r.git')}`,
  )
  t.equal(loggableUrl('/catalog?url=https://u:p@h/r.git&x=1'), `/catalog?url=${encodeURIComponent('https://[redacted]@h/r.git')}&x=1`)
})
