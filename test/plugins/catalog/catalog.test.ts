// GET /api/catalog, each row of the spec's proxy table, against a real remote processor service that
// the test stops and starts; and the in-process source.
import { cp, mkdtemp, rm, appendFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { extractCatalog } from '@ies/processor-lib'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../harness/app.ts'
import { startProcessorService } from '../../harness/processor-service.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const TTL = 400
const STALE = 2500

t.test('catalog from a remote processor service', async (t) => {
  // A templates folder outside git: its commit is the content hash, so an edit is a new catalog.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-catalog-templates-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(path.join(BUNDLED_TEMPLATES_DIR, 'terraform/terraform.tfvars'), path.join(dir, 'terraform/terraform.tfvars'), {
    recursive: true,
  })
  const processor = await startProcessorService({ catalogDir: dir })
  t.teardown(() => processor.stop())
  const { url, auth } = await startTestApp(t, {
    PROCESSOR_URL: processor.url,
    PROCESSOR_SERVICE_TOKEN: processor.token,
    CATALOG_CACHE_TTL_MS: String(TTL),
    CATALOG_STALE_MS: String(STALE),
  })
  const get = (headers: Record<string, string> = {}) => fetch(`${url}/api/catalog`, { headers: { ...auth('dev'), ...headers } })
  const catalogRequests = () => processor.requests.filter((r) => r.path.startsWith('/catalog'))

  const first = await get()
  t.equal(first.status, 200)
  const etag = first.headers.get('etag')!
  const doc = ((await first.json()) as any).data
  t.equal(doc.schemaVersion, 1)
  t.equal(etag, `"${doc.commit}"`, 'the ETag is the templates commit')
  t.ok(doc.services.eks && doc.services.vpc)
  t.equal(first.headers.get('warning'), null)
  t.equal(catalogRequests().length, 1)

  await t.test('TTL: within it, no processor request', async (t) => {
    const again = await get()
    t.equal(again.status, 200)
    t.equal(catalogRequests().length, 1)
  })

  await t.test('client caching: the current ETag gets 304', async (t) => {
    const res = await get({ 'if-none-match': etag })
    t.equal(res.status, 304)
    t.equal(res.headers.get('etag'), etag)
    t.equal((await get({ 'if-none-match': '"something-else"' })).status, 200)
  })

  await t.test('revalidation: after the TTL the ETag is sent, a 304 renews the TTL and keeps the document', async (t) => {
    await sleep(TTL + 50)
    const res = await get()
    t.equal(res.status, 200)
    t.same(((await res.json()) as any).data, doc)
    const last = catalogRequests().at(-1)!
    t.equal(last.ifNoneMatch, etag, 'conditional request')
    t.equal(last.status, 304, 'the processor answered 304')
    const count = catalogRequests().length
    await get()
    t.equal(catalogRequests().length, count, 'the TTL was renewed')
  })

  await t.test('stale on error: processor down, copy younger than the stale window, Warning: 110', async (t) => {
    await processor.stop()
    await sleep(TTL + 50)
    const res = await get()
    t.equal(res.status, 200)
    t.match(res.headers.get('warning'), /^110 /)
    t.equal(res.headers.get('etag'), etag)
    t.same(((await res.json()) as any).data, doc)
  })

  await t.test('older than the stale window: 503', async (t) => {
    await sleep(STALE)
    const res = await get()
    t.equal(res.status, 503)
    t.equal(((await res.json()) as any).error.code, 'SERVICE_UNAVAILABLE')
  })

  await t.test('processor back with changed templates: the new catalog, a new ETag, no warning', async (t) => {
    await appendFile(path.join(dir, 'terraform/terraform.tfvars'), '\n# a change\n')
    await processor.start()
    const res = await get()
    t.equal(res.status, 200)
    t.equal(res.headers.get('warning'), null)
    t.not(res.headers.get('etag'), etag)
    t.equal(res.headers.get('etag'), `"${((await res.json()) as any).data.commit}"`)
  })

  await t.test('authentication is required', async (t) => {
    t.equal((await fetch(`${url}/api/catalog`)).status, 401)
  })
})

t.test('catalog in process (no PROCESSOR_URL)', async (t) => {
  const { url, auth } = await startTestApp(t)
  const res = await fetch(`${url}/api/catalog`, { headers: auth('dev') })
  t.equal(res.status, 200)
  const doc = ((await res.json()) as any).data
  // The services and global fields are the bundled templates' own, as their catalog lists them
  // (a service added by templates alone is served with no change here).
  const bundled = await extractCatalog({ templatesDir: BUNDLED_TEMPLATES_DIR, provider: 'aws' })
  t.ok(Object.keys(bundled.services).length > 0)
  t.same(Object.keys(doc.services).sort(), Object.keys(bundled.services).sort())
  t.same(Object.keys(doc.global.fields).sort(), Object.keys(bundled.global.fields).sort())
  t.same(doc.services, bundled.services, 'the document served is the extracted one')
  t.equal(res.headers.get('etag'), `"${doc.commit}"`)
  t.equal((await fetch(`${url}/api/catalog`, { headers: { ...auth('dev'), 'if-none-match': res.headers.get('etag')! } })).status, 304)
})
