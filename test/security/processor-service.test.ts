// The processor service under hostile input (real HTTP on loopback): the token on every route, link
// entries and traversal in uploads, archive bombs (honest and lying headers), oversize bodies. Each
// answer is a clear 4xx, fast, and nothing is written outside the service's own temporary folders.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { buildProcessorService, zipTree } from '@ies/processor-lib'
import { hostileZip } from './zip-builder.ts'

const TOKEN = 'svc-token-5f0c2b7e9a41d3'
const config = { name: 'acme', region: 'eu-west-1', domain: '', services: {} }
const templates: Record<string, string> = { 'terraform/terraform.tfvars': '# @param name\nname = "demo"\n', 'README.md': 'x\n' }
const MiB = 1024 * 1024

t.test('processor service: hostile input', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'ies-sec-svc-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  for (const [p, c] of Object.entries(templates)) {
    await mkdir(dirname(join(root, 'aws', p)), { recursive: true })
    await writeFile(join(root, 'aws', p), c)
  }
  const outside = await mkdtemp(join(tmpdir(), 'ies-sec-outside-'))
  t.teardown(() => rm(outside, { recursive: true, force: true }))
  const app = await buildProcessorService({
    token: TOKEN,
    templatesRoot: root,
    catalogDir: join(root, 'aws'),
    maxFiles: 50,
    maxArchiveBytes: 1 * MiB,
    maxTreeBytes: 4 * MiB,
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())

  const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-service-token': TOKEN }) =>
    fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  const upload = (archive: Buffer) => post('/process-upload', { archive: archive.toString('base64'), config })
  const good = await zipTree(Object.entries(templates).map(([path, content]) => ({ path, content, mode: 0o644 })))
  t.equal((await upload(good)).status, 200, 'a plain archive is processed (the cases below are refusals, not a broken route)')

  await t.test('token: missing, wrong, near-miss, or elsewhere than X-Service-Token is 401 on every route', async (t) => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/catalog'],
      ['POST', '/process', { templates: 'aws', config }],
      ['POST', '/process-upload', { archive: good.toString('base64'), config }],
      ['POST', '/process-git-download', { url: 'http://127.0.0.1:9/x.git', config }],
      ['GET', '/no-such-route'],
    ]
    const attempts: [string, Record<string, string>, string][] = [
      ['missing', {}, ''],
      ['empty', { 'x-service-token': '' }, ''],
      ['wrong', { 'x-service-token': 'x'.repeat(TOKEN.length) }, ''],
      ['prefix of the token', { 'x-service-token': TOKEN.slice(0, -1) }, ''],
      ['token plus a suffix', { 'x-service-token': TOKEN + 'x' }, ''],
      ['different case', { 'x-service-token': TOKEN.toUpperCase() }, ''],
      ['as a bearer token', { authorization: `Bearer ${TOKEN}` }, ''],
      ['in the query string', {}, `?token=${TOKEN}&x-service-token=${TOKEN}`],
    ]
    for (const [method, path, body] of routes) {
      for (const [name, headers, query] of attempts) {
        const res = await fetch(base + path + query, {
          method,
          headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        t.equal(res.status, 401, `${method} ${path}, token ${name}: 401`)
        t.equal((await res.json()).error.code, 'UNAUTHORIZED')
      }
    }
    t.equal((await fetch(base + '/health')).status, 200, '/health stays open')
  })

  await t.test('uploads: traversal and link entries are refused', async (t) => {
    const cases: [string, Buffer][] = [
      ['backslash traversal', hostileZip([{ name: '..\\evil.tf', data: 'x = 1\n' }])],
      ['drive letter', hostileZip([{ name: 'C:/evil.tf', data: 'x = 1\n' }])],
      ['NUL in a name', hostileZip([{ name: 'ok.tf\0../../evil', data: 'x = 1\n' }])],
      ['traversal after a folder', hostileZip([{ name: 'terraform/../../../evil.tf', data: 'x\n' }])],
      [
        '.git folder (hooks)',
        hostileZip([{ name: '.git/hooks/post-checkout', data: '#!/bin/sh\ntouch /tmp/pwned\n', unixMode: 0o100755 }]),
      ],
      [
        'symbolic link to a folder, then a file through it',
        hostileZip([
          { name: 'out', data: outside, unixMode: 0o120777 },
          { name: 'out/evil.tf', data: 'x\n' },
        ]),
      ],
      ['symbolic link to a file', hostileZip([{ name: 'terraform/terraform.tfvars', data: '/etc/passwd', unixMode: 0o120777 }])],
      ['hard-link-like special file (FIFO)', hostileZip([{ name: 'fifo', data: '', unixMode: 0o010644 }])],
      ['character device', hostileZip([{ name: 'dev', data: '', unixMode: 0o020644 }])],
    ]
    for (const [name, archive] of cases) {
      const res = await upload(archive)
      const body = await res.json()
      t.equal(res.status, 400, `${name}: 400`)
      t.equal(body.error?.code, 'BAD_ARCHIVE', `${name}: BAD_ARCHIVE (${body.error?.message})`)
    }
    t.same(await readdir(outside), [], 'nothing was written through a link')
  })

  await t.test('archive bombs stop early, with honest or lying sizes', async (t) => {
    const zeros = Buffer.alloc(64 * MiB)
    const cases: [string, Buffer, number[]][] = [
      ['one 64 MiB entry, deflated to a few KiB', hostileZip([{ name: 'bomb.tf', data: zeros, deflate: true }]), [413]],
      ['the same entry declaring 10 bytes', hostileZip([{ name: 'bomb.tf', data: zeros, deflate: true, declaredSize: 10 }]), [400, 413]],
      [
        'many small entries adding up',
        hostileZip(Array.from({ length: 40 }, (_, i) => ({ name: `f${i}.tf`, data: Buffer.alloc(MiB), deflate: true }))),
        [413],
      ],
      ['more entries than allowed', hostileZip(Array.from({ length: 500 }, (_, i) => ({ name: `f${i}.tf`, data: 'x' }))), [413]],
    ]
    for (const [name, archive, statuses] of cases) {
      t.ok(archive.length < MiB, `${name}: the upload itself is small (${archive.length} bytes)`)
      const started = Date.now()
      const rss = process.memoryUsage().rss
      const res = await upload(archive)
      const body = await res.json()
      t.ok(statuses.includes(res.status), `${name}: ${res.status} ${body.error?.code} (${body.error?.message})`)
      t.ok(Date.now() - started < 5000, `${name}: answered in ${Date.now() - started} ms`)
      t.ok(process.memoryUsage().rss - rss < 48 * MiB, `${name}: memory grew by ${Math.round((process.memoryUsage().rss - rss) / MiB)} MiB`)
    }
  })

  await t.test('oversize bodies: 413 before processing; and without a token, 401 before reading', async (t) => {
    const big = JSON.stringify({ archive: 'A'.repeat(3 * MiB), config })
    const res = await post('/process-upload', big)
    t.equal(res.status, 413)
    t.equal((await res.json()).error.code, 'PAYLOAD_TOO_LARGE')
    const anonymous = await post('/process-upload', big, {})
    t.equal(anonymous.status, 401, 'no token: refused before the body matters')
    for (const depth of [5_000, 100_000]) {
      const started = Date.now()
      const nested = await post('/process', `{"templates":"aws","config":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`)
      // Processed (the values are simply not found) or refused; never a crash, never a stall.
      t.ok(nested.status === 200 || (nested.status >= 400 && nested.status < 500), `JSON nested ${depth} deep: ${nested.status}`)
      t.ok(Date.now() - started < 5000, `answered in ${Date.now() - started} ms`)
    }
    const wrongType = await fetch(base + '/process', {
      method: 'POST',
      headers: { 'x-service-token': TOKEN, 'content-type': 'text/plain' },
      body: 'templates=aws',
    })
    t.equal(wrongType.status, 400, 'wrong content type: 400')
  })
})
