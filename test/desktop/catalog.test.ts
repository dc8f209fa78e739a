// Client consumption rules 1-4 (spec "Catalog") as the wizard applies them.
import t from 'tap'
import {
  fillServices,
  prepareCatalog,
  validateField,
  validateServices,
} from '../../desktop/src/lib/catalog.ts'
import staticCatalog from '../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

const doc = (services: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  commit: 'abc123',
  global: { fields: {} },
  services,
  errors: [],
  ...extra,
})

const db = {
  displayName: 'Database',
  category: 'Data',
  fields: {
    enabled: { displayName: 'Enabled', type: 'toggle', default: false },
    engine: { displayName: 'Engine', type: 'dropdown', options: [{ value: 'pg', label: 'PostgreSQL' }], default: 'pg' },
    size: { displayName: 'Size', type: 'number', default: 20 },
    class: { displayName: 'Class', type: 'text', pattern: 'db\\.[a-z0-9.]+', default: 'db.t4g.small' },
  },
}

t.test('rule 1: the service configuration starts empty and is filled in place from the catalog', async (t) => {
  const catalog = prepareCatalog(doc({ db, queue: { displayName: 'Queue', fields: { enabled: { type: 'toggle', default: true } } } }))
  const services = {}
  const filled = fillServices(services, catalog)
  t.equal(filled, services, 'the same object is filled, not replaced')
  t.same(services, { db: { enabled: false, engine: 'pg', size: 20, class: 'db.t4g.small' }, queue: { enabled: true } })

  const stored: Record<string, Record<string, unknown>> = { db: { enabled: true, size: 50 }, legacy: { enabled: true } }
  fillServices(stored, catalog)
  t.same(stored.db, { enabled: true, size: 50, engine: 'pg', class: 'db.t4g.small' }, 'values already there are kept')
  t.same(stored.legacy, { enabled: true }, 'a key the catalog does not know is left alone')

  const fromStatic = fillServices({}, prepareCatalog(staticCatalog))
  t.same(Object.keys(fromStatic).sort(), Object.keys(staticCatalog.services).sort(), 'every service comes from the catalog, none is hard-coded')
})

t.test('rule 2: a pattern that does not compile drops only that field validation', async (t) => {
  const broken = structuredClone(db) as any
  broken.fields.class.pattern = 'db\\.(unclosed'
  broken.fields.name = { displayName: 'Name', type: 'text', pattern: '[a-z]+', default: 'a' }
  const catalog = prepareCatalog(doc({ db: broken }))
  const fields = Object.fromEntries(catalog.services[0].fields.map((f) => [f.key, f]))
  t.equal(fields.class.pattern, undefined)
  t.equal(validateField(fields.class, 'anything at all'), null, 'the broken field accepts any text')
  t.ok(fields.name.pattern, 'the other field keeps its pattern')
  t.match(validateField(fields.name, 'ABC'), /Must match/)
  t.equal(validateField(fields.name, 'abc'), null)
  t.match(catalog.warnings.join('\n'), /services\.db\.class.*does not compile/)
})

t.test('patterns are anchored: a partial match is not a match', async (t) => {
  const catalog = prepareCatalog(doc({ db }))
  const cls = catalog.services[0].fields.find((f) => f.key === 'class')!
  t.equal(validateField(cls, 'db.t4g.small'), null)
  t.match(validateField(cls, 'xx db.t4g.small'), /Must match/)
  t.same(validateServices({ db: { enabled: true, class: 'nope' } }, catalog), { 'services.db.class': 'Must match db\\.[a-z0-9.]+' })
  t.same(validateServices({ db: { enabled: false, class: 'nope' } }, catalog), {}, 'a disabled service is not validated')
})

t.test('rule 3: an unknown type becomes text, with a warning', async (t) => {
  const odd = structuredClone(db) as any
  odd.fields.size.type = 'slider'
  const catalog = prepareCatalog(doc({ db: odd }))
  const size = catalog.services[0].fields.find((f) => f.key === 'size')!
  t.equal(size.type, 'text')
  t.equal(size.default, 20, 'the default is kept')
  t.equal(catalog.warnings.length, 1)
  t.match(catalog.warnings[0], /services\.db\.size: unknown type "slider"/)
})

t.test('rule 4: a schemaVersion other than 1 is rejected', async (t) => {
  for (const v of [2, 0, '1', null, undefined]) {
    t.throws(() => prepareCatalog(doc({ db }, { schemaVersion: v })), { name: 'CatalogRejected' }, `schemaVersion ${JSON.stringify(v)}`)
  }
  t.throws(() => prepareCatalog('nope'), { name: 'CatalogRejected' })
  t.doesNotThrow(() => prepareCatalog(doc({ db })))
})

t.test('available=false hides a service or a field; services are grouped by category', async (t) => {
  const catalog = prepareCatalog(
    doc({
      db,
      hidden: { displayName: 'Hidden', available: false, fields: { enabled: { type: 'toggle', default: false } } },
      cache: { displayName: 'Cache', category: 'Data', fields: { enabled: { type: 'toggle', default: false }, secret: { type: 'text', available: false, default: 'x' } } },
      misc: { displayName: 'Misc', fields: { enabled: { type: 'toggle', default: false } } },
      net: { displayName: 'Net', category: 'Networking', fields: { enabled: { type: 'toggle', default: false } } },
    }),
  )
  t.same(catalog.services.map((s) => s.key).sort(), ['cache', 'db', 'misc', 'net'])
  t.same(catalog.services.find((s) => s.key === 'cache')!.fields, [])
  t.same(catalog.groups.map((g) => [g.category, g.services.map((s) => s.key)]), [
    ['Data', ['cache', 'db']],
    ['Networking', ['net']],
    ['Other', ['misc']],
  ])
})

t.test('widgets: number, dropdown and toggle values are checked by type', async (t) => {
  const catalog = prepareCatalog(doc({ db }))
  const f = Object.fromEntries(catalog.services[0].fields.map((x) => [x.key, x]))
  t.equal(validateField(f.size, 3), null)
  t.equal(validateField(f.size, '3'), 'Enter a number')
  t.equal(validateField(f.engine, 'pg'), null)
  t.equal(validateField(f.engine, 'mysql'), 'Choose one of the options')
  t.equal(catalog.services[0].enabledDefault, false)
})
