// GET /api/catalog with a remote processor service and TEMPLATES_REPO (real services: a git
// http-backend with Basic auth behind a recording proxy, the processor service, IES): the catalog is
// the one of the repository generation clones, so its ETag is the templatesCommit (X-Templates-Commit)
// of a generation made right after — not the processor's own templates folder. After a new commit on
// main, the next revalidation (after CATALOG_CACHE_TTL_MS) is a 200 with the new ETag and the next
// generation uses that commit; the git host being down serves the copy with `Warning: 110`; the
// service token and the repository password appear in no response, log line, stored job or URL the
// processor was asked for.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { startGitServer } from '../../harness/git-server.ts'
import { startGitProxy } from '../../harness/git-proxy.ts'
import { startProcessorService } from '../../harness/processor-service.ts'
import { environmentBody, generateAndWait, recorder } from '../../harness/jobs.ts'
import { GIT_ENV } from '../../harness/git-env.ts'

const run = promisify(execFile)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const TOKEN = 'svc-token-catalog-repo-8e41d7'
const PASSWORD = 'repo-password-canary-2b7f90'
const WRONG_PASSWORD = 'wrong-password-canary-c3a5'
// Long enough for a `git push` between two requests on a loaded machine (the checks below rely on
// the second request falling within the TTL of the first).
const TTL = 1500

const TFVARS =
  '# @module services.eks | displayName=EKS\n# @param name | displayName=Environment name\nname = "demo"\n# @param region | displayName=Region\nregion = "eu-west-1"\n'
const TEMPLATES: Record<string, string> = {
  'terraform/terraform.tfvars': TFVARS,
  'terraform/main.tf': 'locals {\n  # @param services.eks.enabled\n  eks = false\n}\n',
}
/** The processor's own templates folder: a catalog the wizard must not get while TEMPLATES_REPO is set. */
const LOCAL_TFVARS = '# @module services.localonly | displayName=Only in the processor folder\n# @param name\nname = "x"\n'

/** A processor service whose own templates folder holds LOCAL_TFVARS (a catalog the wizard must not get while TEMPLATES_REPO is set). */
async function processorWithOwnTemplates(t: Test) {
  const localDir = await mkdtemp(path.join(os.tmpdir(), 'ies-catalog-repo-local-'))
  t.teardown(() => rm(localDir, { recursive: true, force: true }))
  await mkdir(path.join(localDir, 'terraform'))
  await writeFile(path.join(localDir, 'terraform/terraform.tfvars'), LOCAL_TFVARS)
  const processor = await startProcessorService({ catalogDir: localDir, token: TOKEN })
  t.teardown(() => processor.stop())
  return processor
}

function scan(t: Test, secrets: string[], places: Record<string, string[]>) {
  for (const [where, texts] of Object.entries(places)) {
    t.ok(texts.length > 0, `${where}: captured`)
    for (const secret of secrets)
      t.notOk(
        texts.some((s) => s.includes(secret)),
        `${where}: no ${secret.slice(0, 14)}…`,
      )
  }
}

t.test('the catalog is the one of the templates repository generation uses', async (t) => {
  const git = await startGitServer({ username: 'ies', password: PASSWORD })
  t.teardown(() => git.stop())
  await git.createRepo('templates', TEMPLATES)
  const proxy = await startGitProxy(git.baseUrl)
  t.teardown(() => proxy.stop())
  const repoUrl = `${proxy.baseUrl}/templates.git`
  const withPassword = (password: string) => repoUrl.replace('http://', `http://ies:${password}@`)

  const processor = await processorWithOwnTemplates(t)

  const rec = recorder()
  const app = await startTestApp(
    t,
    {
      LOG_LEVEL: 'trace',
      PROCESSOR_URL: processor.url,
      PROCESSOR_SERVICE_TOKEN: TOKEN,
      TEMPLATES_REPO: withPassword(PASSWORD),
      CATALOG_CACHE_TTL_MS: String(TTL),
      CATALOG_STALE_MS: '60000',
    },
    { logStream: rec.logStream },
  )
  const getCatalog = async (etag?: string) => {
    const res = await fetch(`${app.url}/api/catalog`, { headers: { ...app.auth('dev'), ...(etag && { 'if-none-match': etag }) } })
    const text = await res.text()
    rec.seen.push(text)
    return {
      status: res.status,
      etag: res.headers.get('etag'),
      warning: res.headers.get('warning'),
      doc: text ? JSON.parse(text).data : undefined,
    }
  }
  const catalogCalls = () => processor.requests.filter((r) => r.path.startsWith('/catalog'))
  const head = async () => (await git.git('templates', ['rev-parse', 'main'])).trim()

  const envRes = await fetch(`${app.url}/api/environments`, {
    method: 'POST',
    headers: { ...app.auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify(environmentBody({ name: 'catalog-repo' })),
  })
  const envId = ((await envRes.json()) as any).data.id as string

  let etag1 = ''
  await t.test('catalog ETag == the commit of a generation made right after', async (t) => {
    const first = await getCatalog()
    t.equal(first.status, 200)
    const c1 = await head()
    t.equal(first.etag, `"${c1}"`, "the ETag is main's commit")
    t.equal(first.doc.commit, c1)
    t.same(Object.keys(first.doc.services), ['eks'], "the repository's catalog")
    t.notOk('localonly' in first.doc.services, "not the processor's own templates folder")
    const call = catalogCalls().at(-1)!
    t.match(call.path, /^\/catalog\?url=/, 'the processor was asked for the repository')
    t.ok(
      call.path.includes(encodeURIComponent(repoUrl)) && call.path.includes('branch=main'),
      'TEMPLATES_REPO at main, without its credentials',
    )
    const done = await generateAndWait(app, envId, undefined, rec.seen)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.equal(`"${done.result.templatesCommit}"`, first.etag, "the generation's X-Templates-Commit is the catalog ETag")
    t.equal((await getCatalog(first.etag!)).status, 304, 'a client holding it gets 304')
    etag1 = first.etag!
  })

  await t.test(
    'a new commit on main: after the TTL the revalidation is a 200 with the new ETag, and the next generation uses it',
    async (t) => {
      // The new commit is made first and pushed only after the revalidation below, so that only the
      // push falls between it and the request within its TTL.
      const work = await mkdtemp(path.join(os.tmpdir(), 'ies-catalog-repo-work-'))
      t.teardown(() => rm(work, { recursive: true, force: true }))
      await run('git', ['clone', '-q', path.join(git.reposDir, 'templates.git'), work], { env: GIT_ENV })
      await writeFile(
        path.join(work, 'terraform/terraform.tfvars'),
        TFVARS + '# @param domain | displayName=Domain\ndomain = "example.com"\n',
      )
      await run('git', ['commit', '-qam', 'templates: domain'], { cwd: work, env: GIT_ENV })

      await sleep(TTL + 50)
      const stillSame = await getCatalog(etag1)
      t.equal(stillSame.status, 304, 'before the commit: revalidated, still current')
      t.equal(catalogCalls().at(-1)!.status, 304, 'the processor answered 304 to the conditional request')
      await run('git', ['push', '-q', 'origin', 'main'], { cwd: work, env: GIT_ENV })
      const c2 = await head()
      t.not(`"${c2}"`, etag1)

      const calls = catalogCalls().length
      t.equal((await getCatalog(etag1)).status, 304, 'within the TTL the cached catalog answers')
      t.equal(catalogCalls().length, calls, 'without asking the processor')
      await sleep(TTL + 50)
      const next = await getCatalog(etag1)
      t.equal(next.status, 200, 'after the TTL: the new catalog')
      t.equal(next.etag, `"${c2}"`)
      t.equal(next.doc.commit, c2)
      t.ok(next.doc.global.fields.domain, 'with the new field')
      const last = catalogCalls().at(-1)!
      t.equal(last.ifNoneMatch, etag1, 'revalidated with the old ETag')
      t.equal(last.status, 200)
      const done = await generateAndWait(app, envId, undefined, rec.seen)
      t.equal(done.status, 'succeeded', JSON.stringify(done.error))
      t.equal(done.result.templatesCommit, c2, 'the next generation uses the new commit')
    },
  )

  await t.test('git host down: the cached catalog with Warning: 110; back: no warning', async (t) => {
    const current = `"${await head()}"`
    proxy.down = true
    await sleep(TTL + 50)
    const stale = await getCatalog()
    proxy.down = false
    t.equal(stale.status, 200)
    t.match(stale.warning, /^110 /)
    t.equal(stale.etag, current)
    t.equal(catalogCalls().at(-1)!.status, 502, 'the processor reported the git host as unreachable')
    await sleep(TTL + 50)
    const back = await getCatalog()
    t.equal(back.status, 200)
    t.equal(back.warning, null)
    t.equal(back.etag, current)
  })

  await t.test('credentials the git host refuses: 503, and the reason in the log without the password', async (t) => {
    const rec2 = recorder()
    const other = await startTestApp(
      t,
      { LOG_LEVEL: 'trace', PROCESSOR_URL: processor.url, PROCESSOR_SERVICE_TOKEN: TOKEN, TEMPLATES_REPO: withPassword(WRONG_PASSWORD) },
      { logStream: rec2.logStream },
    )
    const res = await fetch(`${other.url}/api/catalog`, { headers: other.auth('dev') })
    const text = await res.text()
    rec2.seen.push(text)
    t.equal(res.status, 503)
    t.equal(JSON.parse(text).error.code, 'SERVICE_UNAVAILABLE')
    t.notMatch(text, /"services"/, "the processor's cached catalog of that repository is not served")
    t.ok(
      rec2.lines.some((l) => l.includes('CLONE_FAILED')),
      "the processor's reason is logged",
    )
    scan(t, [WRONG_PASSWORD, encodeURIComponent(WRONG_PASSWORD), TOKEN], { responses: rec2.seen, 'IES log': rec2.lines })
  })

  await t.test('the token and the password are in no response, log line, stored job or processor request URL', async (t) => {
    const db = app.db.client.db()
    const jobs = JSON.stringify([
      ...(await db.collection('jobs').find({}).toArray()),
      ...(await db.collection('jobHistory').find({}).toArray()),
    ])
    scan(t, [PASSWORD, encodeURIComponent(PASSWORD), TOKEN], {
      responses: rec.seen,
      'IES log': rec.lines,
      'stored jobs': [jobs],
      'processor request URLs': processor.requests.map((r) => r.path),
    })
    const basic = (password: string) => 'Basic ' + Buffer.from(`ies:${password}`).toString('base64')
    const authorized = proxy.calls.filter((c) => c.authorization)
    t.ok(authorized.length > 0, 'the git host got Basic auth')
    t.ok(
      authorized.every((c) => [basic(PASSWORD), basic(WRONG_PASSWORD)].includes(c.authorization!)),
      'only the configured credentials, as Basic auth',
    )
  })
})

t.test("without TEMPLATES_REPO the remote catalog is still the processor's own templates folder", async (t) => {
  const processor = await processorWithOwnTemplates(t)
  const app = await startTestApp(t, { PROCESSOR_URL: processor.url, PROCESSOR_SERVICE_TOKEN: TOKEN })
  const res = await fetch(`${app.url}/api/catalog`, { headers: app.auth('dev') })
  t.equal(res.status, 200)
  t.same(Object.keys(((await res.json()) as any).data.services), ['localonly'])
  t.same(
    processor.requests.map((r) => r.path),
    ['/catalog'],
    'GET /catalog without a repository',
  )
})
