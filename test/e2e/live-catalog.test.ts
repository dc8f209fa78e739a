// The wizard is built from the live catalog (GET /api/catalog through a real remote processor
// service whose templates have a field the built-in catalog lacks): the field is offered, the
// draft keeps the live commit, a reload revalidates with If-None-Match (304, the client's copy),
// and with the processor stopped the server's cached copy (Warning: 110) is shown as possibly out of date.
// The catalog carries attributes as strings (template decorators, rule 8) and the wizard reads them:
// a field of a type it does not know is a text field with a visible warning (client rule 3), a
// service with available=false is not offered, and "2"/"true"/"3" defaults become 2/true/3.
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import staticCatalog from '../../desktop/src/catalog/static-catalog.json' with { type: 'json' }
import { startTestApp } from '../harness/app.ts'
import { startProcessorService } from '../harness/processor-service.ts'
import { launchBrowser, newPage, screenshot, signedInContext } from './browser.ts'

const TTL_MS = 500
const LIVE_FIELD = 'Team note (live catalog only)'
const ODD_FIELD = 'Team size (a widget the wizard does not know)'
const LIVE_PARAM = `
# @param services.eks.teamNote | displayName=${LIVE_FIELD} | description=Only the live templates declare this field. | type=text | default=from-live
team_note = "from-live"
# @param services.eks.teamSize | displayName=${ODD_FIELD} | type=slider | default=7
team_size = 7
# @module services.legacy | displayName=Legacy (hidden) | category=Compute | available=false
# @param services.legacy.size | displayName=Legacy size | type=number | default=1
legacy_size = 1
`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

t.test('the wizard is built from the live catalog, revalidated with its ETag, stale copy flagged', async (t) => {
  t.notOk('teamNote' in (staticCatalog.services.eks.fields as Record<string, unknown>), 'the built-in catalog does not have the field')
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-e2e-live-catalog-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(path.join(BUNDLED_TEMPLATES_DIR, 'terraform/terraform.tfvars'), path.join(dir, 'terraform/terraform.tfvars'))
  await appendFile(path.join(dir, 'terraform/terraform.tfvars'), LIVE_PARAM)
  const processor = await startProcessorService({ catalogDir: dir })
  t.teardown(() => processor.stop())
  const ies = await startTestApp(t, {
    PROCESSOR_URL: processor.url,
    PROCESSOR_SERVICE_TOKEN: processor.token,
    CATALOG_CACHE_TTL_MS: String(TTL_MS),
    CATALOG_STALE_MS: String(60 * 60 * 1000),
  })
  ies.config.publicUrl = ies.url
  const live = await fetch(`${ies.url}/api/catalog`, { headers: ies.auth('dev') })
  const etag = live.headers.get('etag')!
  const liveDoc = ((await live.json()) as any).data
  const commit = liveDoc.commit as string
  t.equal(etag, `"${commit}"`)
  t.same(liveDoc.errors, [])
  t.match(liveDoc.services.eks.fields.teamSize, { type: 'slider', default: '7' }, 'the catalog carries the type and default as written')
  t.equal(liveDoc.services.legacy.available, 'false')
  t.match(liveDoc.services.eks.fields.nodeMinSize, { type: 'number', default: '2' })

  const browser = await launchBrowser(t)
  const context = await signedInContext(browser, ies.tokenFor('dev'))
  const { page, problems } = await newPage(context)
  const exchanges: { ifNoneMatch: string | null; status: number; warning: string | null }[] = []
  page.on('response', async (r) => {
    if (!r.url().endsWith('/api/catalog')) return
    const sent = await r.request().allHeaders()
    exchanges.push({ ifNoneMatch: sent['if-none-match'] ?? null, status: r.status(), warning: (await r.allHeaders())['warning'] ?? null })
  })

  // --- first opening: no copy yet, the live document
  await page.goto(`${ies.url}/#/environments/new`)
  const source = page.getByTestId('catalog-source')
  await source.waitFor()
  t.match(await source.textContent(), /^Live service catalog from templates/)
  t.equal(await source.getAttribute('data-commit'), commit, 'the wizard shows the live commit')
  t.equal(await page.getByTestId('catalog-fallback').count(), 0, 'no fallback')
  t.match(exchanges, [{ ifNoneMatch: null, status: 200, warning: null }])
  await page.getByLabel('Environment name').fill('live-catalog')
  await page.getByLabel('Global prefix').fill('acme')
  await page.getByRole('button', { name: 'Next: Services' }).click()
  const eks = page.locator('[data-service="eks"]')
  await eks.getByRole('switch', { name: 'Enable EKS' }).click()
  const note = eks.getByLabel(LIVE_FIELD)
  t.equal(await note.inputValue(), 'from-live', 'a field only the live catalog has, with its default')
  await note.fill('platform-team')
  // rule 3: an unknown type is a text field, with a warning the user sees
  const odd = eks.getByLabel(ODD_FIELD)
  t.equal(await odd.getAttribute('type'), 'text', 'a text input')
  t.equal(await odd.inputValue(), '7')
  t.match(
    await page.getByTestId('catalog-adjusted').textContent(),
    /services\.eks\.teamSize: unknown type "slider" is shown as a text field/,
  )
  // available=false hides the service
  t.equal(await page.locator('[data-service="legacy"]').count(), 0, 'the hidden service is not offered')
  t.equal(await page.getByText('Legacy (hidden)').count(), 0)
  // string defaults read for their widgets
  t.equal(await eks.getByLabel('Minimum nodes').inputValue(), '2')
  t.equal(
    await eks.getByRole('switch', { name: 'Public API endpoint' }).getAttribute('aria-checked'),
    'false',
    'default "false" leaves the toggle off',
  )
  const rds = page.locator('[data-service="rds"]')
  await rds.getByRole('switch', { name: 'Enable RDS PostgreSQL' }).click()
  t.equal(
    await rds.getByRole('switch', { name: 'Deletion protection' }).getAttribute('aria-checked'),
    'true',
    'default "true" checks the toggle',
  )
  t.equal(await eks.getByLabel('Node capacity type').locator('option:checked').textContent(), 'On-demand')
  await screenshot(page, '14-wizard-live-catalog')
  const draft = await page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => k.startsWith('ies.wizardDraft:') && k.endsWith(':new'))
    return JSON.parse((key && localStorage.getItem(key)) ?? 'null')
  })
  t.equal(draft?.commit, commit, 'the draft is saved with the live catalog commit')
  t.equal(draft?.values.services.eks.teamNote, 'platform-team')

  // --- reload: If-None-Match with the ETag, 304, the client's copy builds the wizard
  await page.reload()
  await page.getByTestId('draft-notice').waitFor()
  t.equal(await eks.getByLabel(LIVE_FIELD).inputValue(), 'platform-team', 'the live field is there again, with the draft value')
  t.match(exchanges.at(-1), { ifNoneMatch: etag, status: 304, warning: null }, 'revalidated: 304 for the copy the client holds')
  t.equal(await page.getByTestId('catalog-stale').count(), 0)

  // --- the processor goes away: the server serves its cached copy with Warning: 110
  await processor.stop()
  await sleep(TTL_MS + 200)
  await page.reload()
  const stale = page.getByTestId('catalog-stale')
  await stale.waitFor()
  t.match(await stale.textContent(), /may be out of date/)
  t.match(exchanges.at(-1), { ifNoneMatch: etag, status: 304, warning: /^110 / })
  t.match(await source.textContent(), /may be out of date/)
  t.equal(await eks.getByLabel(LIVE_FIELD).inputValue(), 'platform-team', 'still the live catalog, not the built-in one')
  await screenshot(page, '15-wizard-catalog-stale')

  // --- and it still creates the environment with the live field
  await page.getByRole('button', { name: 'Review' }).click()
  await page.getByRole('button', { name: 'Create environment' }).click()
  await page.getByRole('heading', { name: 'live-catalog', exact: true }).waitFor()
  const list = (await (await fetch(`${ies.url}/api/environments`, { headers: ies.auth('dev') })).json()) as any
  const stored = (await (await fetch(`${ies.url}/api/environments/${list.data[0].id}`, { headers: ies.auth('dev') })).json()) as any
  t.equal(stored.data.services.eks.teamNote, 'platform-team')
  t.match(
    stored.data.services.eks,
    { teamSize: '7', nodeMinSize: 2, endpointPublicAccess: false },
    'typed values, not the attribute strings',
  )
  t.equal(stored.data.services.rds.deletionProtection, true, 'a "true" default stored as true')
  t.match(stored.data.services.vpc, { enabled: false, azCount: 3, singleNatGateway: true }, 'a dropdown default "3" is the option value 3')
  t.notOk('legacy' in stored.data.services, 'nothing for the hidden service')
  t.same(problems.errors, [])
})
