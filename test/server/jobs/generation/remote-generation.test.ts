// Generation through the remote processor service (PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN): the job
// calls the processor's POST /process-git-download, which clones the templates repository (a real git
// http-backend with Basic auth, TEMPLATES_REPO) at `main`, or at the version an environment is
// pinned to (a commit or a tag); the processor's generation error reaches the job error as in process; an unreachable, hanging, lying or token-refusing processor
// fails the job with a clear error; the service token and the repository password appear in no job
// error, response, stored job or log line.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { zipTree } from '@ies/processor-lib'
import { startTestApp, type TestApp } from '../../../harness/app.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { startProcessorService } from '../../../harness/processor-service.ts'
import { environmentBody, generateAndWait, recorder, unzip } from '../../../harness/jobs.ts'
import { GIT_ENV } from '../../../harness/git-env.ts'

const run = promisify(execFile)
const TOKEN = 'svc-token-canary-7f3a91c2e4'
const WRONG_TOKEN = 'svc-wrong-token-canary-5b8d02'
const REPO_PASSWORD = 'repo-password-canary-a61c'

const TEMPLATES: Record<string, string> = {
  'terraform/terraform.tfvars':
    '# @param name | displayName=Environment name | type=text\nname = "demo"\n# @param region | displayName=Region\nregion = "eu-west-1"\n',
  'terraform/main.tf': 'locals {\n  # @param services.eks.enabled | displayName=EKS\n  eks = false\n}\n',
  '.github/workflows/terraform.yml': 'name: terraform\non: push\njobs: {}\n',
  'charts/app/values.yaml': '# @param domain | displayName=Domain\nhost: example.com\n',
  'gitops/app.yaml': 'kind: Application\n',
}
const BROKEN: Record<string, string> = {
  ...TEMPLATES,
  'terraform/main.tf': 'locals {\n  # @param name\n  name = <<EOT\nx\nEOT\n}\n',
}

async function newEnvironment(app: TestApp, seen: string[], name: string): Promise<string> {
  const res = await fetch(`${app.url}/api/environments`, {
    method: 'POST',
    headers: { ...app.auth('dev'), 'content-type': 'application/json' },
    body: JSON.stringify(environmentBody({ name, domain: 'shop.example.com' })),
  })
  const text = await res.text()
  seen.push(text)
  if (res.status !== 201) throw new Error(`environment: ${res.status} ${text}`)
  return JSON.parse(text).data.id
}

async function storedJobs(app: TestApp): Promise<string> {
  const db = app.db.client.db()
  const docs = [...(await db.collection('jobs').find({}).toArray()), ...(await db.collection('jobHistory').find({}).toArray())]
  return JSON.stringify(docs)
}

function scan(t: Test, secrets: string[], rec: { seen: string[]; lines: string[] }, extra: string[] = []) {
  t.ok(rec.lines.length > 0, 'the server log was captured')
  for (const secret of secrets) {
    t.notOk(
      rec.seen.some((s) => s.includes(secret)),
      `no response or job view holds ${secret.slice(0, 12)}…`,
    )
    t.notOk(
      rec.lines.some((l) => l.includes(secret)),
      `no log line holds ${secret.slice(0, 12)}…`,
    )
    t.notOk(
      extra.some((s) => s.includes(secret)),
      `no stored job holds ${secret.slice(0, 12)}…`,
    )
  }
}

t.test('generation calls the processor service, which clones the templates repository', async (t) => {
  const git = await startGitServer({ username: 'ies', password: REPO_PASSWORD })
  t.teardown(() => git.stop())
  const repoUrl = await git.createRepo('templates', TEMPLATES)
  const brokenUrl = await git.createRepo('broken', BROKEN)
  const withAuth = (u: string) => u.replace('http://', `http://ies:${REPO_PASSWORD}@`)
  const catalogDir = await mkdtemp(path.join(os.tmpdir(), 'ies-remote-gen-catalog-'))
  t.teardown(() => rm(catalogDir, { recursive: true, force: true }))
  const processor = await startProcessorService({ catalogDir, token: TOKEN })
  t.teardown(() => processor.stop())

  const rec = recorder()
  const app = await startTestApp(
    t,
    { LOG_LEVEL: 'trace', PROCESSOR_URL: processor.url, PROCESSOR_SERVICE_TOKEN: TOKEN, TEMPLATES_REPO: withAuth(repoUrl) },
    { logStream: rec.logStream },
  )
  const envId = await newEnvironment(app, rec.seen, 'remote-gen')

  await t.test("the archive is the processor's output of the repository's main, plus the backend file", async (t) => {
    const done = await generateAndWait(app, envId, { format: 'terraform', options: { includeBackend: true } }, rec.seen)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    const head = (await git.git('templates', ['rev-parse', 'main'])).trim()
    t.equal(done.result.templatesCommit, head, "the templates commit is the repository's")
    t.equal(done.result.fileCount, 5)
    const calls = processor.requests.filter((r) => r.path === '/process-git-download')
    t.equal(calls.length, 1, 'one POST /process-git-download')
    t.equal(calls[0].status, 200)
    const download = await fetch(`${app.url}/api/jobs/${done.id}/download`, { headers: app.auth('dev') })
    t.equal(download.status, 200)
    const files = await unzip(Buffer.from(await download.arrayBuffer()))
    t.same(
      [...files.keys()],
      [
        '.github/workflows/terraform.yml',
        '.ies/generation.json',
        'terraform/backend.tf',
        'terraform/main.tf',
        'terraform/terraform.tfvars',
      ],
      'the selected files only, and the generation record',
    )
    t.match(files.get('terraform/terraform.tfvars'), 'name = "remote-gen"')
    t.match(
      files.get('terraform/terraform.tfvars'),
      '# @param name | displayName=Environment name',
      'tails kept: the processor does not trim',
    )
    t.match(files.get('terraform/backend.tf'), `key          = "env/${envId}/aws.tfstate"`)
  })

  await t.test('unpinned: a new commit on main is used by the next generation', async (t) => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'ies-remote-gen-work-'))
    t.teardown(() => rm(work, { recursive: true, force: true }))
    const bare = path.join(git.reposDir, 'templates.git')
    await run('git', ['clone', '-q', bare, work], { env: GIT_ENV })
    await writeFile(path.join(work, 'terraform/main.tf'), 'locals {\n  # @param region\n  where = "x"\n}\n')
    await run('git', ['commit', '-qam', 'templates: where'], { cwd: work, env: GIT_ENV })
    await run('git', ['push', '-q', 'origin', 'main'], { cwd: work, env: GIT_ENV })
    const head = (await git.git('templates', ['rev-parse', 'main'])).trim()
    const done = await generateAndWait(app, envId, { format: 'terraform', options: {} }, rec.seen)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.equal(done.result.templatesCommit, head)
    const files = await unzip(
      Buffer.from(await (await fetch(`${app.url}/api/jobs/${done.id}/download`, { headers: app.auth('dev') })).arrayBuffer()),
    )
    t.match(files.get('terraform/main.tf'), 'where = "eu-central-1"')
  })

  await t.test('pinned: the processor generates the version the environment is pinned to, by commit or by tag', async (t) => {
    const [newest, older] = (await git.git('templates', ['rev-list', '-n', '2', 'main'])).trim().split('\n')
    await git.git('templates', ['tag', '-a', '-m', 'release 1', 'v1', older])
    const pin = async (templatesPin: string | null) => {
      const res = await fetch(`${app.url}/api/environments/${envId}`, {
        method: 'PUT',
        headers: { ...app.auth('dev'), 'content-type': 'application/json' },
        body: JSON.stringify({ templatesPin }),
      })
      t.equal(res.status, 200, `templatesPin ${templatesPin}: ${res.status}`)
    }
    const generated = async () => {
      const done = await generateAndWait(app, envId, { format: 'terraform', options: {} }, rec.seen)
      t.equal(done.status, 'succeeded', JSON.stringify(done.error))
      const download = await fetch(`${app.url}/api/jobs/${done.id}/download`, { headers: app.auth('dev') })
      const files = await unzip(Buffer.from(await download.arrayBuffer()))
      return { commit: done.result.templatesCommit, mainTf: String(files.get('terraform/main.tf')) }
    }
    const calls = () => processor.requests.filter((r) => r.path === '/process-git-download' && r.status === 200).length
    const before = calls()
    await pin(older)
    const byCommit = await generated()
    t.equal(byCommit.commit, older, 'pinned to a commit: that commit')
    t.notMatch(byCommit.mainTf, 'where =', "and its files, not the newest's")
    await pin('v1')
    t.equal((await generated()).commit, older, 'pinned to an annotated tag: the commit it names')
    t.equal(calls(), before + 2, 'both made by the processor service')
    await pin(null)
    const following = await generated()
    t.equal(following.commit, newest, 'unpinned again: the newest')
    t.match(following.mainTf, 'where = "eu-central-1"')
  })

  await t.test("the processor's generation error is the job error, as in process; other formats do not read the broken file", async (t) => {
    const broken = await startTestApp(t, {
      PROCESSOR_URL: processor.url,
      PROCESSOR_SERVICE_TOKEN: TOKEN,
      TEMPLATES_REPO: withAuth(brokenUrl),
    })
    const brokenEnv = await newEnvironment(broken, rec.seen, 'broken-gen')
    const done = await generateAndWait(broken, brokenEnv, { format: 'terraform' }, rec.seen)
    t.equal(done.status, 'failed')
    t.equal(done.error?.code, 'GENERATION_FAILED')
    t.equal(done.error?.message, '1 file(s) could not be generated')
    t.match(
      done.error?.details,
      [{ file: 'terraform/main.tf', line: 3, code: 'MULTILINE_VALUE', message: String }],
      'the findings, as in process',
    )
    const sync = await fetch(`${broken.url}/api/environments/${brokenEnv}/generate?wait=true`, {
      method: 'POST',
      headers: { ...broken.auth('dev'), 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'terraform' }),
    })
    const body = await sync.text()
    rec.seen.push(body)
    t.equal(sync.status, 422)
    t.match(JSON.parse(body).error, { code: 'GENERATION_FAILED', details: [{ code: 'MULTILINE_VALUE' }] })
    const helm = await generateAndWait(broken, brokenEnv, { format: 'helm' }, rec.seen)
    t.equal(helm.status, 'succeeded', 'helm processes charts/ only (include), as in process')
    rec.seen.push(await storedJobs(broken))
  })

  await t.test('a repository the processor cannot clone: its refusal, without the password', async (t) => {
    const missing = await startTestApp(t, {
      PROCESSOR_URL: processor.url,
      PROCESSOR_SERVICE_TOKEN: TOKEN,
      TEMPLATES_REPO: withAuth(git.url('no-such-repo')),
    })
    const missingEnv = await newEnvironment(missing, rec.seen, 'missing-gen')
    const done = await generateAndWait(missing, missingEnv, { format: 'terraform' }, rec.seen)
    t.equal(done.status, 'failed')
    t.equal(done.error?.code, 'CLONE_FAILED')
    t.match(
      done.error?.message,
      /^The template processor refused the generation: could not clone http:\/\/127\.0\.0\.1:\d+\/no-such-repo\.git at main/,
    )
    rec.seen.push(await storedJobs(missing))
  })

  await t.test('neither the service token nor the repository password appears anywhere', async (t) => {
    scan(t, [TOKEN, REPO_PASSWORD], rec, [await storedJobs(app)])
  })
})

t.test('a processor that refuses the token, cannot be reached, hangs, sends a short archive or is slow', async (t) => {
  const git = await startGitServer()
  t.teardown(() => git.stop())
  const repoUrl = await git.createRepo('templates', TEMPLATES)
  const catalogDir = await mkdtemp(path.join(os.tmpdir(), 'ies-remote-gen-catalog-'))
  t.teardown(() => rm(catalogDir, { recursive: true, force: true }))
  const processor = await startProcessorService({ catalogDir, token: TOKEN })
  t.teardown(() => processor.stop())

  await t.test('a wrong service token: PROCESSOR_UNAUTHORIZED, the token nowhere', async (t) => {
    const rec = recorder()
    const app = await startTestApp(
      t,
      { LOG_LEVEL: 'trace', PROCESSOR_URL: processor.url, PROCESSOR_SERVICE_TOKEN: WRONG_TOKEN, TEMPLATES_REPO: repoUrl },
      { logStream: rec.logStream },
    )
    const envId = await newEnvironment(app, rec.seen, 'wrong-token')
    const done = await generateAndWait(app, envId, { format: 'terraform' }, rec.seen)
    t.equal(done.status, 'failed')
    t.equal(done.error?.code, 'PROCESSOR_UNAUTHORIZED')
    t.match(done.error?.message, /refused the service token \(PROCESSOR_SERVICE_TOKEN\)/)
    scan(t, [WRONG_TOKEN, TOKEN], rec, [await storedJobs(app)])
  })

  await t.test('nothing listening: PROCESSOR_UNAVAILABLE with the reason', async (t) => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const rec = recorder()
    const app = await startTestApp(
      t,
      { LOG_LEVEL: 'trace', PROCESSOR_URL: `http://127.0.0.1:${port}`, PROCESSOR_SERVICE_TOKEN: TOKEN, TEMPLATES_REPO: repoUrl },
      { logStream: rec.logStream },
    )
    const envId = await newEnvironment(app, rec.seen, 'unreachable')
    const done = await generateAndWait(app, envId, { format: 'terraform' }, rec.seen)
    t.equal(done.status, 'failed')
    t.equal(done.error?.code, 'PROCESSOR_UNAVAILABLE')
    t.equal(done.error?.message, `The template processor at http://127.0.0.1:${port} cannot be reached: ECONNREFUSED`)
    const download = await fetch(`${app.url}/api/jobs/${done.id}/download`, { headers: app.auth('dev') })
    t.equal(download.status, 409, 'no archive')
    scan(t, [TOKEN], rec, [await storedJobs(app)])
  })

  await t.test('a processor that hangs, whose archive is short of its file count, or that is slower than a lock lifetime', async (t) => {
    let mode: 'hang' | 'short' | 'slow' = 'hang'
    let calls = 0
    const fake: Server = createServer((req, res) => {
      req.resume()
      calls++
      if (mode === 'hang') return // never answers
      const answer = () =>
        void zipTree([{ path: 'terraform/main.tf', content: 'x = 1\n', mode: 0o644 }]).then((zip) => {
          res.writeHead(200, {
            'content-type': 'application/zip',
            'x-templates-commit': 'f'.repeat(40),
            'x-processor-file-count': mode === 'short' ? '2' : '1',
            'x-processor-findings': '0',
          })
          res.end(zip)
        })
      if (mode === 'slow') setTimeout(answer, 3000)
      else answer()
    })
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve))
    t.teardown(() => {
      fake.closeAllConnections()
      fake.close()
    })
    const rec = recorder()
    const app = await startTestApp(
      t,
      {
        LOG_LEVEL: 'trace',
        PROCESSOR_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
        PROCESSOR_SERVICE_TOKEN: TOKEN,
        TEMPLATES_REPO: repoUrl,
        PROCESSOR_GENERATE_TIMEOUT_MS: '4000',
        JOBS_LOCK_LIFETIME_MS: '2000',
        JOBS_PROCESS_EVERY_MS: '200',
      },
      { logStream: rec.logStream },
    )
    const envId = await newEnvironment(app, rec.seen, 'fake-processor')
    const hung = await generateAndWait(app, envId, { format: 'terraform' }, rec.seen)
    t.equal(hung.status, 'failed')
    t.equal(hung.error?.code, 'PROCESSOR_UNAVAILABLE')
    t.match(hung.error?.message, /cannot be reached: no answer within 4000 ms$/)

    mode = 'short'
    const short = await generateAndWait(app, envId, { format: 'terraform' }, rec.seen)
    t.equal(short.status, 'failed', 'a success status alone does not make a complete tree')
    t.equal(short.error?.code, 'GENERATION_FAILED')
    t.match(short.error?.details, [{ code: 'MISSING_OUTPUT', file: '.', message: "1 files in the processor's archive for 2 produced" }])

    // 3 s of processing with a 2 s lock lifetime (heartbeats every 0.67 s): the job keeps its lock, nobody starts it again.
    mode = 'slow'
    calls = 0
    const slow = await generateAndWait(app, envId, { format: 'terraform' }, rec.seen)
    t.equal(slow.status, 'succeeded', JSON.stringify(slow.error))
    t.equal(calls, 1, 'one request to the processor')
    t.equal((await app.app.jobs.store.byId(slow.id))?.attempts, 1, 'one attempt')
    scan(t, [TOKEN], rec, [await storedJobs(app)])
  })
})

t.test("without TEMPLATES_REPO: the processor's own templates folder, the one its catalog comes from", async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-remote-gen-own-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const [p, content] of Object.entries(TEMPLATES)) {
    await mkdir(path.dirname(path.join(dir, p)), { recursive: true })
    await writeFile(path.join(dir, p), content)
  }
  const processor = await startProcessorService({ catalogDir: dir, token: TOKEN })
  t.teardown(() => processor.stop())
  const rec = recorder()
  const app = await startTestApp(t, { PROCESSOR_URL: processor.url, PROCESSOR_SERVICE_TOKEN: TOKEN, CATALOG_CACHE_TTL_MS: '0' })
  const envId = await newEnvironment(app, rec.seen, 'own-templates')
  const catalog = await fetch(`${app.url}/api/catalog`, { headers: app.auth('dev') })
  t.equal(catalog.status, 200)
  const commit = ((await catalog.json()) as any).data.commit
  const done = await generateAndWait(app, envId, { format: 'helm' }, rec.seen)
  t.equal(done.status, 'succeeded', JSON.stringify(done.error))
  t.equal(done.result.templatesCommit, commit, 'the generated tree and the catalog come from the same templates')
  t.equal(processor.requests.filter((r) => r.path === '/process').length, 1, 'POST /process')
  const files = await unzip(
    Buffer.from(await (await fetch(`${app.url}/api/jobs/${done.id}/download`, { headers: app.auth('dev') })).arrayBuffer()),
  )
  t.same([...files.keys()], ['.ies/generation.json', 'charts/app/values.yaml'])
  t.match(files.get('charts/app/values.yaml'), 'host: shop.example.com')

  await writeFile(path.join(dir, 'charts/app/values.yaml'), '# @param domain\nhost: changed.example.com\nextra: true\n')
  const again = await generateAndWait(app, envId, { format: 'helm' }, rec.seen)
  const etag = (await fetch(`${app.url}/api/catalog`, { headers: app.auth('dev') })).headers.get('etag')
  t.not(again.result.templatesCommit, commit, 'a template edit: a new commit')
  t.equal(etag, `"${again.result.templatesCommit}"`, 'for both')
})
