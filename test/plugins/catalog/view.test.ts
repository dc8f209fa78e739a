// `app.catalog.view`, the typed view of the current catalog every plugin judges values against: one
// view per catalog document, shared by every reader, even when each read revalidates the document
// (TTL 0); a changed catalog is a new view; a catalog that cannot be read, or whose document is of
// another schema version, gives null, logged with the reader's own warning.
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import type { Catalog } from '@ies/processor-lib'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'
import { logLines } from '../../harness/log-lines.ts'
import { serveCatalogDocument } from '../../harness/catalog-document-server.ts'
import { CatalogViews } from '../../../plugins/catalog/view.ts'

const NEW_FIELD = '\n# @param services.eks.teamNote | displayName=Team note | type=text\nteam_note = "x"\n'
const WARNINGS = { unavailable: 'test: catalog unavailable', otherVersion: 'test: catalog of another schema version' }
/** The log lines with one of the readers' warnings. */
const warned = (lines: string[]) =>
  lines.map((l) => JSON.parse(l)).filter((l) => l.msg === WARNINGS.unavailable || l.msg === WARNINGS.otherVersion)

t.test('one view per catalog document, a new one for a changed catalog, null when it cannot be read', async (t) => {
  // A templates folder outside git: its commit is the content hash, so an edit is a new catalog.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-catalog-view-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const tfvars = path.join(dir, 'terraform/terraform.tfvars')
  await cp(path.join(BUNDLED_TEMPLATES_DIR, 'terraform/terraform.tfvars'), tfvars)
  const { lines, logStream } = logLines()
  // Every read asks the templates again (TTL 0), and no stale copy is served (stale window 0).
  const { app } = await startTestApp(
    t,
    { TEMPLATES_DIR: dir, CATALOG_CACHE_TTL_MS: '0', CATALOG_STALE_MS: '0', LOG_LEVEL: 'warn' },
    { logStream },
  )
  const view = () => app.catalog.view(app.log, WARNINGS)

  const first = await view()
  t.ok(first, 'a view of the bundled catalog')
  t.equal(first?.schemaVersion, 1)
  t.ok(first?.services.eks, 'with its services')
  t.equal(await view(), first, 'the same document gives the same view object: built once')
  t.equal(await app.catalog.view(app.log, { unavailable: 'another reader' }), first, 'shared by every reader')

  await appendFile(tfvars, NEW_FIELD)
  const changed = await eventually(view, (v) => v !== first)
  t.not(changed, first, 'a changed catalog gives a new view')
  t.not(changed?.commit, first?.commit, 'of the new document')
  t.ok(changed?.services.eks?.fields.teamNote, 'with the new field')
  t.equal(await view(), changed, 'itself built once')
  t.same(warned(lines), [], 'no warning while there is a catalog')

  await rm(tfvars)
  const gone = await eventually(view, (v) => v === null)
  t.equal(gone, null, 'a catalog that cannot be read gives null')
  const warning = warned(lines).find((l) => l.msg === WARNINGS.unavailable)
  t.ok(warning, "logged with the reader's warning")
  t.equal(warning?.level, 40, 'at warn level')
  t.match(warning?.err?.message, /no parameter-values file/, "with the source's reason")
})

t.test('a catalog document of another schema version gives null', async (t) => {
  const doc = { schemaVersion: 2, commit: 'c'.repeat(40), global: { fields: {} }, services: {}, errors: [] }
  const processorUrl = await serveCatalogDocument(t, doc)
  const { lines, logStream } = logLines()
  const { app } = await startTestApp(
    t,
    { PROCESSOR_URL: processorUrl, PROCESSOR_SERVICE_TOKEN: 'svc-token', LOG_LEVEL: 'warn' },
    { logStream },
  )

  t.equal(await app.catalog.view(app.log, { unavailable: WARNINGS.unavailable }), null, 'not read')
  t.same(warned(lines), [], 'nothing logged for a reader without an otherVersion warning')
  t.equal(await app.catalog.view(app.log, WARNINGS), null)
  const logged = warned(lines)
  t.equal(logged.length, 1)
  t.match(logged[0], { level: 40, msg: WARNINGS.otherVersion, schemaVersion: 2 }, 'logged with its schemaVersion')
})

t.test('CatalogViews: the typed view of a catalog document, built once, with what reading it adjusted', async (t) => {
  const { app } = await startTestApp(t)
  const view = await app.catalog.view(app.log, WARNINGS)
  t.ok(view)
  t.same(app.catalog.warningsOf(view!), [], 'the bundled catalog needs no adjustment')
  const views = new CatalogViews()

  const doc: Catalog = {
    schemaVersion: 1,
    commit: 'p'.repeat(40),
    global: { fields: {} },
    errors: [],
    services: { db: { displayName: 'Database', fields: { size: { displayName: 'Size', type: 'slider', default: '20' } } } },
  }
  const pinned = views.of(doc)
  t.match(pinned?.services.db.fields.size, { type: 'text', default: '20' }, "read the clients' way")
  t.equal(views.of(doc), pinned, 'built once per document')
  t.same(views.warningsOf(pinned!), ['services.db.size: unknown type "slider" is treated as text'], 'with what reading it adjusted')
  t.not(views.of({ ...doc }), pinned, 'another document object is another view')
  t.equal(views.of({ ...doc, schemaVersion: 2 } as unknown as Catalog), null, 'a document of another schema version has none')
})

t.test('viewAt: the typed view of a templates version, its catalog read as the in-process source reads it', async (t) => {
  const { app } = await startTestApp(t)
  const view = await app.catalog.view(app.log, WARNINGS)
  const templates = await app.templates.load()
  const atVersion = app.catalog.viewAt(templates)
  t.equal(atVersion?.commit, templates.commit, "the version's commit")
  t.same(atVersion?.services, view?.services, 'the same services and fields as the current view of the same templates')
  const withoutValues = { ...templates, inputs: templates.inputs.filter((f) => !f.path.endsWith('terraform.tfvars')) }
  t.equal(app.catalog.viewAt(withoutValues), null, 'none for templates without a parameter-values file')
})
