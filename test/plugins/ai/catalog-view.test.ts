// The assistant is a catalog client: it reads the document's string attributes (template decorators,
// rule 8) the way the wizard does — an unknown type becomes text with a logged warning, defaults are
// typed for their widget, `available: "false"` hides — and validates suggestions against that view.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { extractCatalog, type Catalog as CatalogDocument } from '@ies/processor-lib'
import { builtinAssistant } from '../../../plugins/ai/builtin-assistant.ts'
import { fieldAt, valueProblem } from '../../../processor-lib/src/contract/fields.ts'
import { testPattern } from '../../../server/src/core/safe-pattern.ts'
import { viewingSource } from '../../../plugins/ai/catalog-source.ts'
import { CatalogCache } from '../../../plugins/catalog/cache.ts'
import { catalogView } from '../../../processor-lib/src/contract/view.ts'
import { checkDraft } from '../../../plugins/ai/draft-review.ts'
import { acceptSuggestions } from '../../../plugins/ai/suggestions.ts'

/** The app's catalog cache (`app.catalog`) over a source that serves `doc`. */
const cacheOf = (doc: CatalogDocument) =>
  new CatalogCache({ fetch: async () => ({ notModified: false, catalog: doc, etag: doc.commit }) }, 60_000, 0)

const TFVARS = [
  '# @param region | displayName=Region | type=text | default=eu-west-1',
  'region = "eu-west-1"',
  '',
  '# @module services.db | displayName=Database | category=Databases',
  '# @param services.db.size | displayName=Size | type=slider | default=20',
  'db_size = 10',
  '# @param services.db.count | displayName=Count | type=number | pattern=^[1-9]$ | default=3',
  'db_count = 3',
  '# @param services.db.multiAz | displayName=Multi-AZ | type=toggle | default=false',
  'db_multi_az = false',
  '# @param services.db.zones | displayName=Zones | type=dropdown | options=[{"value":2,"label":"2"},{"value":3,"label":"3"}] | default=3',
  'db_zones = 3',
  '# @param services.db.secret | displayName=Secret | type=text | available=false | default=x',
  'db_secret = "x"',
  '',
  '# @module services.legacy | displayName=Legacy | available=false',
  '# @param services.legacy.size | displayName=Size | type=number | default=1',
  'legacy_size = 1',
  '',
].join('\n')

async function fixtureDocument(t: Test): Promise<CatalogDocument> {
  const dir = await mkdtemp(join(tmpdir(), 'ies-ai-cat-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await mkdir(join(dir, 'terraform'))
  await writeFile(join(dir, 'terraform/terraform.tfvars'), TFVARS)
  const doc = await extractCatalog({ templatesDir: dir, provider: 'aws', commit: 'c1' })
  t.same(doc.errors, [], 'the extractor reports none of this')
  return doc
}

t.test('an unknown type reaches the assistant as text, with a warning', async (t) => {
  const doc = await fixtureDocument(t)
  t.equal(doc.services.db.fields.size.type, 'slider', 'the document carries the type as written')
  const { catalog, warnings } = catalogView(doc)
  t.match(catalog.services.db.fields.size, { type: 'text', default: '20' })
  t.same(warnings, ['services.db.size: unknown type "slider" is treated as text'])
  const ref = fieldAt(catalog, 'services.db.size')!
  t.equal(valueProblem(ref, 'large', testPattern), null, 'text is accepted')
  t.equal(valueProblem(ref, 20, testPattern), 'must be text')

  const logged: Array<{ obj: unknown; msg: string }> = []
  const log = { warn: (obj: unknown, msg: string) => logged.push({ obj, msg }) }
  const source = viewingSource(cacheOf(doc), log as never)
  const first = await source()
  const second = await source()
  t.equal(first, second, 'one view per document')
  t.same(
    logged,
    [{ obj: { commit: 'c1' }, msg: 'assistant: catalog: services.db.size: unknown type "slider" is treated as text' }],
    'logged once per document',
  )
})

t.test('defaults are typed for their widget; suggestions and fixes pass the catalog', async (t) => {
  const { catalog } = catalogView(await fixtureDocument(t))
  const db = catalog.services.db.fields
  t.equal(db.count.default, 3)
  t.equal(db.multiAz.default, false)
  t.equal(db.zones.default, 3, 'the dropdown default is the option value 3, not "3"')
  t.equal(db.enabled.default, false)
  const { suggestions } = acceptSuggestions(catalog, [
    { path: 'services.db.count', value: 3, reason: 'a number' },
    { path: 'services.db.count', value: '3', reason: 'the same as text' },
    { path: 'services.db.zones', value: 3, reason: 'an option value' },
    { path: 'services.db.multiAz', value: 'false', reason: 'a string is not a toggle value' },
    { path: 'services.db.multiAz', value: true, reason: 'a boolean' },
  ])
  t.same(
    suggestions.map((s) => [s.path, s.value]),
    [
      ['services.db.count', 3],
      ['services.db.zones', 3],
      ['services.db.multiAz', true],
    ],
  )
  // a wrong draft value is fixed with the catalog default, which must pass the catalog itself
  const findings = checkDraft(catalog, { services: { db: { enabled: true, count: 'many', zones: 4 } } })
  const fixes = findings.flatMap((f) => (f.fix ? [f.fix] : []))
  t.same(
    fixes.map((f) => [f.path, f.value]),
    [
      ['services.db.count', 3],
      ['services.db.zones', 3],
    ],
  )
  t.equal(acceptSuggestions(catalog, fixes).suggestions.length, 2, 'the fixes are accepted')
})

t.test('available "false" hides a service or a field from the assistant', async (t) => {
  const { catalog, warnings } = catalogView(await fixtureDocument(t))
  t.same(
    warnings.filter((w) => /available/.test(w)),
    [],
  )
  t.equal(catalog.services.legacy.available, false)
  t.equal(catalog.services.db.fields.secret.available, false)
  t.equal(fieldAt(catalog, 'services.legacy.size'), null)
  t.equal(fieldAt(catalog, 'services.db.secret'), null)
  t.same(acceptSuggestions(catalog, [{ path: 'services.legacy.enabled', value: true, reason: '' }]).suggestions, [])
  const list = builtinAssistant({ catalog, messages: [{ role: 'user', content: 'which services are there?' }] }).content
  t.match(list, /Database/)
  t.notMatch(list, /Legacy/)

  const odd = catalogView({
    schemaVersion: 1,
    commit: 'c2',
    global: { fields: {} },
    services: { x: { displayName: 'X', available: 'no', fields: {} } },
    errors: [],
  })
  t.equal(odd.catalog.services.x.available, true, 'only "false" hides')
  t.same(odd.warnings, ['services.x: available "no" is neither true nor false; the service is offered'])
})

t.test('the bundled templates need no adjustment', async (t) => {
  const doc = await extractCatalog({ templatesDir: 'templates', provider: 'aws', commit: 'x' })
  const { catalog, warnings } = catalogView(doc)
  t.same(warnings, [])
  t.equal(catalog.services.vpc.fields.azCount.default, 3)
  t.equal(catalog.services.vpc.fields.singleNatGateway.default, true)
  t.equal(catalog.services.eks.fields.nodeMinSize.default, 2)
  t.equal(catalog.services.aurora.fields.minCapacity.default, 0.5)
})

t.test('a declared unit the assistant cannot convert to is logged once; the field still works', async (t) => {
  const doc: CatalogDocument = {
    schemaVersion: 1,
    commit: 'c2',
    global: { fields: {} },
    errors: [],
    services: {
      q: {
        displayName: 'Queue',
        fields: {
          enabled: { displayName: 'Enabled', type: 'toggle', default: false },
          depth: { displayName: 'Depth', type: 'number', default: '3', unit: 'ACU' },
          wait: { displayName: 'Wait', type: 'number', default: '30', unit: 's' },
        },
      },
    },
  }
  const logged: string[] = []
  const source = viewingSource(cacheOf(doc), { warn: (_obj: unknown, msg: string) => logged.push(msg) } as never)
  const view = await source()
  await source()
  t.same(logged, ['assistant: catalog: services.q.depth: unit "ACU" is not one the assistant converts to; quantities are not read for it'])
  t.equal(view?.services.q.fields.depth.default, 3)
})
