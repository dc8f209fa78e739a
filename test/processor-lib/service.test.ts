// The processor service over real HTTP (127.0.0.1): token, routes, 304, upload safety, git route.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildProcessorService, unzipToFiles, zipTree } from '@ies/processor-lib'
import { startGitServer } from '../harness/git-server.ts'
import { hostileZip } from '../security/zip-builder.ts'

const run = promisify(execFile)
const TOKEN = 'test-token-0123456789'
const config = { name: 'acme', region: 'eu-west-1', domain: '', services: { eks: { enabled: false } } }
const templates: Record<string, string> = {
  'terraform/terraform.tfvars': '# @module services.eks | displayName=EKS\n# @param name | displayName=Name\nname = "demo"\n',
  'terraform/main.tf':
    '# @section services.eks.enabled begin\nmodule "eks" {\n  source = "./eks"\n}\n# @section services.eks.enabled end\n',
  'values/app.yaml': '# @param domain\nhost: example.com\n',
  'README.md': 'verbatim\n',
}

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [p, c] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true })
    await writeFile(join(root, p), c)
  }
}

let app: FastifyInstance
let base: string
let root: string

t.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'ies-svc-'))
  await writeFiles(join(root, 'aws'), templates)
  await writeFiles(join(root, 'broken'), { 'a.yaml': '# @param name\nx: |\n  y\n', 'b.tf': 'x = 1\n' })
  await symlink('/etc', join(root, 'escape'))
  app = await buildProcessorService({
    token: TOKEN,
    templatesRoot: root,
    catalogDir: join(root, 'aws'),
    maxFiles: 20,
    maxArchiveBytes: 64 * 1024,
    maxTreeBytes: 256 * 1024,
    allowedHosts: ['127.0.0.1'], // the tests' loopback Git servers
  })
  base = await app.listen({ port: 0, host: '127.0.0.1' })
})
t.teardown(async () => {
  await app.close()
  await rm(root, { recursive: true, force: true })
})

const auth = { 'x-service-token': TOKEN }
const post = (path: string, body: unknown, headers: Record<string, string> = auth) =>
  fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

t.test('the service refuses to start without a token', async (t) => {
  await t.rejects(buildProcessorService({ token: '' }), /service token/)
})

t.test('/health is open; every other route needs the token', async (t) => {
  const h = await fetch(base + '/health')
  t.equal(h.status, 200)
  t.same(await h.json(), { status: 'ok' })
  for (const headers of [{}, { 'x-service-token': 'wrong' }, { 'x-service-token': TOKEN + 'x' }] as Record<string, string>[]) {
    const r = await fetch(base + '/catalog', { headers })
    t.equal(r.status, 401)
    t.same(await r.json(), { error: { code: 'UNAUTHORIZED', message: 'a valid X-Service-Token header is required' } })
  }
  t.equal((await post('/process', { templates: 'aws', config }, {})).status, 401)
})

t.test('GET /catalog: ETag is the commit, If-None-Match gives 304', async (t) => {
  const r = await fetch(base + '/catalog', { headers: auth })
  t.equal(r.status, 200)
  const catalog = await r.json()
  t.equal(catalog.schemaVersion, 1)
  t.equal(r.headers.get('etag'), `"${catalog.commit}"`)
  t.same(Object.keys(catalog.services), ['eks'])
  const again = await fetch(base + '/catalog', { headers: { ...auth, 'if-none-match': r.headers.get('etag')! } })
  t.equal(again.status, 304)
  t.equal(await again.text(), '')
  const other = await fetch(base + '/catalog', { headers: { ...auth, 'if-none-match': '"something-else"' } })
  t.equal(other.status, 200)
  const unknown = await fetch(base + '/catalog?provider=azure', { headers: auth })
  t.equal(unknown.status, 400)
  t.equal((await unknown.json()).error.code, 'UNKNOWN_PROVIDER')
})

t.test('POST /process: JSON and zip results, 422 with findings, 400s', async (t) => {
  const r = await post('/process', { templates: 'aws', config })
  t.equal(r.status, 200)
  const body = await r.json()
  t.equal(body.fileCount, 4)
  const byPath = Object.fromEntries(body.files.map((f: { path: string; content: string }) => [f.path, f]))
  t.equal(byPath['terraform/terraform.tfvars'].content, templates['terraform/terraform.tfvars'].replace('"demo"', '"acme"'))
  t.equal(byPath['values/app.yaml'].content, '# @param domain\nhost: ""\n')
  t.match(byPath['terraform/main.tf'].content, /^# module "eks" \{$/m)
  t.equal(byPath['README.md'].encoding, 'base64')

  const z = await post('/process', { templates: 'aws', config, format: 'zip', trimDecoratorAttrs: true })
  t.equal(z.status, 200)
  t.equal(z.headers.get('content-type'), 'application/zip')
  const files = await unzipToFiles(Buffer.from(await z.arrayBuffer()), { maxFiles: 100, maxBytes: 1e6 })
  t.same(
    files.map((f) => f.path),
    ['README.md', 'terraform/main.tf', 'terraform/terraform.tfvars', 'values/app.yaml'],
  )
  t.match(String(files[2].content), /^# @module services\.eks\n# @param name\n/)

  const bad = await post('/process', { templates: 'broken', config })
  t.equal(bad.status, 422)
  const err = await bad.json()
  t.equal(err.error.code, 'GENERATION_FAILED')
  t.same(err.error.details.refused, ['a.yaml'])
  t.equal(err.error.details.findings[0].code, 'MULTILINE_VALUE')
  t.match(err.error.details.findings[0].message, /a\.yaml:2 @param name/)

  for (const templatesDir of ['../etc', '/etc', 'escape', 'nope']) {
    const r = await post('/process', { templates: templatesDir, config })
    t.equal(r.status, 400, templatesDir)
    t.ok((await r.json()).error.code)
  }
  const noConfig = await post('/process', { templates: 'aws' })
  t.equal(noConfig.status, 400)
  t.equal((await noConfig.json()).error.code, 'BAD_REQUEST')
  const notJson = await fetch(base + '/process', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{nope',
  })
  t.equal(notJson.status, 400)
  const big = await post('/process', { templates: 'aws', config: { pad: 'x'.repeat(3 * 1024 * 1024) } })
  t.equal(big.status, 413)
  t.equal((await big.json()).error.code, 'PAYLOAD_TOO_LARGE')
})

t.test('POST /process-upload: processes a zip; refuses zip-slip, links and oversize archives', async (t) => {
  const zip = await zipTree(Object.entries(templates).map(([path, content]) => ({ path, content, mode: 0o644 })))
  const ok = await post('/process-upload', { archive: zip.toString('base64'), config })
  t.equal(ok.status, 200)
  t.equal((await ok.json()).fileCount, 4)

  const cases: [string, Buffer, number, string][] = [
    [
      'dot-dot entry',
      hostileZip([
        { name: 'ok.tf', data: 'x = 1\n' },
        { name: '../evil.tf', data: 'x = 1\n' },
      ]),
      400,
      'BAD_ARCHIVE',
    ],
    ['nested dot-dot entry', hostileZip([{ name: 'a/../../evil.tf', data: 'x\n' }]), 400, 'BAD_ARCHIVE'],
    ['absolute entry', hostileZip([{ name: '/etc/evil', data: 'x\n' }]), 400, 'BAD_ARCHIVE'],
    ['symbolic link', hostileZip([{ name: 'link', data: '/etc/passwd', unixMode: 0o120777 }]), 400, 'BAD_ARCHIVE'],
    ['too many files', hostileZip(Array.from({ length: 21 }, (_, i) => ({ name: `f${i}.txt`, data: 'x' }))), 413, 'ARCHIVE_TOO_LARGE'],
    ['too many bytes unpacked', hostileZip([{ name: 'big.txt', data: 'x'.repeat(300 * 1024) }]), 413, 'ARCHIVE_TOO_LARGE'],
    ['not a zip', Buffer.from('hello'), 400, 'BAD_ARCHIVE'],
  ]
  for (const [name, archive, status, code] of cases) {
    const r = await post('/process-upload', { archive: archive.toString('base64'), config })
    t.equal(r.status, status, name)
    t.equal((await r.json()).error.code, code, name)
  }
  const huge = await post('/process-upload', { archive: Buffer.alloc(70 * 1024, 1).toString('base64'), config })
  t.equal(huge.status, 413)
  const notBase64 = await post('/process-upload', { archive: '***', config })
  t.equal(notBase64.status, 400)
})

t.test('POST /process-git-download against a real git http-backend', async (t) => {
  const git = await startGitServer({ username: 'ies', password: 's3cret' })
  t.teardown(() => git.stop())
  const url = await git.createRepo('templates', join(root, 'aws'))
  const r = await post('/process-git-download', { url, username: 'ies', password: 's3cret', config })
  t.equal(r.status, 200)
  t.equal(r.headers.get('content-type'), 'application/zip')
  const head = (await git.git('templates', ['rev-parse', 'main'])).trim()
  t.equal(r.headers.get('x-templates-commit'), head)
  const files = await unzipToFiles(Buffer.from(await r.arrayBuffer()), { maxFiles: 100, maxBytes: 1e6 })
  t.same(
    files.map((f) => f.path),
    ['README.md', 'terraform/main.tf', 'terraform/terraform.tfvars', 'values/app.yaml'],
  )
  t.match(String(files[2].content), /name = "acme"/)

  const json = await post('/process-git-download', { url, branch: 'main', username: 'ies', password: 's3cret', config, format: 'json' })
  t.equal((await json.json()).fileCount, 4)

  const wrongAuth = await post('/process-git-download', { url, username: 'ies', password: 'nope', config })
  t.equal(wrongAuth.status, 400)
  t.equal((await wrongAuth.json()).error.code, 'CLONE_FAILED')
  const noBranch = await post('/process-git-download', { url, branch: 'missing', username: 'ies', password: 's3cret', config })
  t.equal(noBranch.status, 400)
  const badScheme = await post('/process-git-download', { url: 'file:///etc', config })
  t.equal(badScheme.status, 400)

  const brokenUrl = await git.createRepo('broken', join(root, 'broken'))
  const broken = await post('/process-git-download', { url: brokenUrl, username: 'ies', password: 's3cret', config })
  t.equal(broken.status, 422)
  t.equal((await broken.json()).error.code, 'GENERATION_FAILED')
})

t.test('POST /process-git-download of a version: a commit of the branch or a tag, never the newest by mistake', async (t) => {
  const git = await startGitServer({ username: 'ies', password: 's3cret' })
  t.teardown(() => git.stop())
  const url = await git.createRepo('versions', join(root, 'aws'))
  const first = (await git.git('versions', ['rev-parse', 'main'])).trim()
  await git.git('versions', ['tag', '-a', '-m', 'release 1', 'v1', first])
  // A second commit on main: README.md changes.
  const work = await mkdtemp(join(tmpdir(), 'ies-svc-versions-'))
  t.teardown(() => rm(work, { recursive: true, force: true }))
  const gitIn = (...args: string[]) => run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd: work })
  await gitIn('clone', '-q', join(git.reposDir, 'versions.git'), '.')
  await writeFile(join(work, 'README.md'), 'second version\n')
  await gitIn('commit', '-qam', 'second')
  await gitIn('push', '-q', 'origin', 'main')
  const second = (await git.git('versions', ['rev-parse', 'main'])).trim()
  const generate = async (version?: string) => {
    const r = await post('/process-git-download', {
      url,
      username: 'ies',
      password: 's3cret',
      config,
      format: 'json',
      ...(version && { version }),
    })
    const body = (await r.json()) as any
    return {
      status: r.status,
      commit: r.headers.get('x-templates-commit'),
      body,
      readme: Buffer.from(body.files?.find((f: any) => f.path === 'README.md')?.content ?? '', 'base64').toString(),
    }
  }
  t.match(await generate(), { status: 200, commit: second, readme: 'second version\n' }, 'no version: the newest commit')
  t.match(await generate(first), { status: 200, commit: first, readme: 'verbatim\n' }, 'a commit of the branch: its files')
  t.match(await generate(second), { status: 200, commit: second, readme: 'second version\n' }, 'the newest commit by its id')
  t.match(await generate('v1'), { status: 200, commit: first, readme: 'verbatim\n' }, 'an annotated tag: the commit it names')
  const unknown = await generate('f'.repeat(40))
  t.match(unknown, { status: 404, body: { error: { code: 'VERSION_NOT_FOUND' } } }, 'a commit the repository does not hold')
  t.match(await generate('v9'), { status: 404, body: { error: { code: 'VERSION_NOT_FOUND' } } }, 'a tag it does not hold')
  t.match(
    await generate('refs/../../x'),
    { status: 400, body: { error: { code: 'BAD_REQUEST', details: [{ field: '/version' }] } } },
    'a version that is neither a commit id nor a tag name names the field',
  )
})

t.test('include: only the files under the given prefixes are processed; /process names its commit', async (t) => {
  const r = await post('/process', { templates: 'aws', config, include: ['terraform/'], format: 'zip' })
  t.equal(r.status, 200)
  t.equal(r.headers.get('x-processor-file-count'), '2')
  t.match(r.headers.get('x-templates-commit'), /^sha256-[0-9a-f]{64}$/, 'a folder outside git: its content hash')
  const files = await unzipToFiles(Buffer.from(await r.arrayBuffer()), { maxFiles: 100, maxBytes: 1e6 })
  t.same(
    files.map((f) => f.path),
    ['terraform/main.tf', 'terraform/terraform.tfvars'],
  )
  const catalog = await fetch(base + '/catalog', { headers: auth })
  t.equal(catalog.headers.get('etag'), `"${r.headers.get('x-templates-commit')}"`, 'the same commit as the catalog of that folder')

  await writeFiles(join(root, 'mixed'), { 'terraform/a.tf': 'x = 1\n', 'charts/bad.yaml': '# @param name\nx: |\n  y\n' })
  t.equal((await post('/process', { templates: 'mixed', config })).status, 422, 'the whole tree: the broken file refuses it')
  const outside = await post('/process', { templates: 'mixed', config, include: ['terraform/'] })
  t.equal(outside.status, 200, 'a broken file outside the prefixes is not processed')
  t.same(
    (await outside.json()).files.map((f: { path: string }) => f.path),
    ['terraform/a.tf'],
  )
  const none = await post('/process', { templates: 'mixed', config, include: ['gitops/'] })
  t.equal((await none.json()).fileCount, 0)
  t.equal((await post('/process', { templates: 'mixed', config, include: [''] })).status, 400, 'an empty prefix is refused')
})
