// Client consumption rules 1-4 (spec "Catalog") as the wizard applies them, on documents whose
// attributes are strings as the decorators wrote them (template decorators, rule 8).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { extractCatalog } from '@ies/processor-lib'
import { loadCatalog } from '../../../../../desktop/src/renderer/lib/catalog/source.ts'
import {
  fillServices,
  prepareCatalog,
  readDefault,
  validateField,
  validateServices,
} from '../../../../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'
import { fieldAt, valueProblem } from '../../../../../processor-lib/src/contract/fields.ts'
import { catalogView } from '../../../../../processor-lib/src/contract/view.ts'
import { testPattern } from '../../../../../server/src/core/safe-pattern.ts'
import staticCatalog from '../../../../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

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
    size: { displayName: 'Size', type: 'number', default: '20' },
    class: { displayName: 'Class', type: 'text', pattern: 'db\\.[a-z0-9.]+', default: 'db.t4g.small' },
  },
}

t.test('rule 1: the service configuration starts empty and is filled in place from the catalog', async (t) => {
  const catalog = prepareCatalog(doc({ db, queue: { displayName: 'Queue', fields: { enabled: { type: 'toggle', default: 'true' } } } }))
  const services = {}
  const filled = fillServices(services, catalog)
  t.equal(filled, services, 'the same object is filled, not replaced')
  t.same(services, { db: { enabled: false, engine: 'pg', size: 20, class: 'db.t4g.small' }, queue: { enabled: true } })

  const stored: Record<string, Record<string, unknown>> = { db: { enabled: true, size: 50 }, legacy: { enabled: true } }
  fillServices(stored, catalog)
  t.same(stored.db, { enabled: true, size: 50, engine: 'pg', class: 'db.t4g.small' }, 'values already there are kept')
  t.same(stored.legacy, { enabled: true }, 'a key the catalog does not know is left alone')

  const fromStatic = fillServices({}, prepareCatalog(staticCatalog))
  t.same(
    Object.keys(fromStatic).sort(),
    Object.keys(staticCatalog.services).sort(),
    'every service comes from the catalog, none is hard-coded',
  )
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
  t.equal(validateField(fields.name, 'ABC'), 'Enter one or more characters: lowercase letters.')
  t.equal(validateField(fields.name, 'abc'), null)
  t.match(catalog.warnings.join('\n'), /services\.db\.class.*does not compile/)
})

t.test('patterns are anchored: a partial match is not a match', async (t) => {
  const catalog = prepareCatalog(doc({ db }))
  const cls = catalog.services[0].fields.find((f) => f.key === 'class')!
  t.equal(validateField(cls, 'db.t4g.small'), null)
  t.ok(validateField(cls, 'xx db.t4g.small'))
  t.same(validateServices({ db: { enabled: true, class: 'nope' } }, catalog), { 'services.db.class': validateField(cls, 'nope') })
  t.equal(cls.rule, 'db\\.[a-z0-9.]+', 'the pattern is kept as the catalog wrote it, for the detail')
  t.notMatch(validateField(cls, 'nope'), /\[a-z/, 'the message holds no regular expression')
  t.same(validateServices({ db: { enabled: false, class: 'nope' } }, catalog), {}, 'a disabled service is not validated')
})

t.test('rule 3: an unknown type becomes text, with a warning', async (t) => {
  const odd = structuredClone(db) as any
  odd.fields.size.type = 'slider'
  const catalog = prepareCatalog(doc({ db: odd }))
  const size = catalog.services[0].fields.find((f) => f.key === 'size')!
  t.equal(size.type, 'text')
  t.equal(size.default, '20', 'the default is kept, as text')
  t.equal(catalog.warnings.length, 1)
  t.match(catalog.warnings[0], /services\.db\.size: unknown type "slider" is shown as a text field/)
  t.equal(validateField(size, 'anything'), null, 'a text field takes any text')
})

t.test('rule 3 end to end: an unknown type from a template reaches the wizard as text, logged and shown', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ies-desktop-cat-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await mkdir(join(dir, 'terraform'))
  await writeFile(
    join(dir, 'terraform/terraform.tfvars'),
    [
      '# @module services.db | displayName=Database',
      '# @param services.db.size | displayName=Size | type=slider | default=20',
      'db_size = 10',
      '',
    ].join('\n'),
  )
  const live = await extractCatalog({ templatesDir: dir, provider: 'aws', commit: 'c1' })
  t.same(live.errors, [], "the extractor reports nothing: the type is the client's business")
  t.equal(live.services.db.fields.size.type, 'slider', 'the document carries the type as written')
  const logged: string[] = []
  const loaded = await loadCatalog({
    useRuntimeCatalog: true,
    fetchCatalog: async () => ({ document: live }),
    staticCatalog,
    log: (m) => logged.push(m),
  })
  const size = loaded.catalog.services[0].fields[0]
  t.match(size, { key: 'size', type: 'text', default: '20' })
  t.match(
    loaded.catalog.warnings,
    [/services\.db\.size: unknown type "slider" is shown as a text field/],
    'shown in the wizard (CatalogNotices)',
  )
  t.match(logged, [/catalog: services\.db\.size: unknown type "slider"/], 'and logged')
})

t.test('defaults are read for their widget: "3" -> 3, "true"/"false" -> booleans, an option by its value', async (t) => {
  const catalog = prepareCatalog(
    doc({
      vpc: {
        displayName: 'VPC',
        fields: {
          enabled: { displayName: 'Enabled', type: 'toggle', default: 'true' },
          azCount: {
            type: 'dropdown',
            options: [
              { value: 2, label: '2' },
              { value: 3, label: '3' },
            ],
            default: '3',
          },
          nat: { type: 'toggle', default: 'false' },
          logs: { type: 'toggle', default: 'true' },
          count: { type: 'number', default: '3' },
          capacity: { type: 'number', default: '0.5' },
          empty: { type: 'number', default: '' },
          typed: { type: 'number', default: 7 },
          label: { type: 'text', default: 'x' },
          numberAsText: { type: 'text', default: 5 },
        },
      },
    }),
  )
  const vpc = catalog.services[0]
  t.equal(vpc.enabledDefault, true, 'the enable toggle reads "true"')
  const defaults = Object.fromEntries(vpc.fields.map((f) => [f.key, f.default]))
  t.same(defaults, { azCount: 3, nat: false, logs: true, count: 3, capacity: 0.5, empty: null, typed: 7, label: 'x', numberAsText: '5' })
  t.equal(typeof defaults.azCount, 'number', 'the dropdown holds the option value itself')
  t.same(catalog.warnings, [])
  const services = fillServices({}, catalog)
  t.same(services.vpc, {
    enabled: true,
    azCount: 3,
    nat: false,
    logs: true,
    count: 3,
    capacity: 0.5,
    empty: null,
    typed: 7,
    label: 'x',
    numberAsText: '5',
  })
  t.same(validateServices(services, catalog), {}, 'the filled values pass their own widgets')
})

t.test('defaults the wizard cannot read start empty, with a warning', async (t) => {
  const catalog = prepareCatalog(
    doc({
      s3: {
        displayName: 'S3',
        fields: {
          enabled: { type: 'toggle', default: 'yes' },
          count: { type: 'number', default: 'many' },
          flag: { type: 'toggle', default: 'on' },
          menu: { type: 'dropdown', options: [{ value: 'a', label: 'A' }], default: 'b' },
          shape: { type: 'dropdown', options: { value: 1 }, default: '1' },
        },
      },
    }),
  )
  const s3 = catalog.services[0]
  t.equal(s3.enabledDefault, false)
  const f = Object.fromEntries(s3.fields.map((x) => [x.key, x]))
  t.equal(f.count.default, null)
  t.equal(f.flag.default, null)
  t.equal(f.menu.default, null)
  t.equal(f.shape.type, 'text', 'options that are not a list of {value, label}: a text field')
  t.equal(f.shape.default, '1')
  t.same(catalog.warnings, [
    'services.s3.enabled: default "yes" is not true or false; the service starts disabled',
    'services.s3.count: default "many" is not a number; the field starts empty',
    'services.s3.flag: default "on" is not true or false; the field starts empty',
    'services.s3.menu: default "b" is not one of the options; the field starts empty',
    'services.s3.shape: a dropdown without a list of {value, label} options is shown as a text field',
  ])
  t.same(readDefault('number', ' 42 '), { value: 42 })
  t.same(readDefault('number', '0x10'), { problem: 'default "0x10" is not a number' })
  t.same(readDefault('dropdown', true, [{ value: 'true', label: 'yes' }]), { value: 'true' })
})

t.test('rule 4: a schemaVersion other than 1 is rejected', async (t) => {
  for (const v of [2, 0, '1', null, undefined]) {
    t.throws(() => prepareCatalog(doc({ db }, { schemaVersion: v })), { name: 'CatalogRejected' }, `schemaVersion ${JSON.stringify(v)}`)
  }
  t.throws(() => prepareCatalog('nope'), { name: 'CatalogRejected' })
  t.doesNotThrow(() => prepareCatalog(doc({ db })))
})

t.test('available "false" hides a service or a field; services are grouped by category', async (t) => {
  const catalog = prepareCatalog(
    doc({
      db,
      hidden: { displayName: 'Hidden', available: 'false', fields: { enabled: { type: 'toggle', default: false } } },
      typed: { displayName: 'Typed', available: false, fields: { enabled: { type: 'toggle', default: false } } },
      cache: {
        displayName: 'Cache',
        category: 'Data',
        available: 'true',
        fields: { enabled: { type: 'toggle', default: false }, secret: { type: 'text', available: 'false', default: 'x' } },
      },
      misc: { displayName: 'Misc', fields: { enabled: { type: 'toggle', default: false } } },
      net: { displayName: 'Net', category: 'Networking', fields: { enabled: { type: 'toggle', default: false } } },
    }),
  )
  t.same(catalog.services.map((s) => s.key).sort(), ['cache', 'db', 'misc', 'net'], 'the string "false" (and a boolean false) hides')
  t.same(catalog.services.find((s) => s.key === 'cache')!.fields, [])
  t.same(fillServices({}, catalog).hidden, undefined, 'a hidden service gets no values')
  t.same(
    catalog.groups.map((g) => [g.category, g.services.map((s) => s.key)]),
    [
      ['Data', ['cache', 'db']],
      ['Networking', ['net']],
      ['Other', ['misc']],
    ],
  )
  t.same(catalog.warnings, [])

  const odd = prepareCatalog(
    doc({
      misc: {
        displayName: 'Misc',
        available: 'no',
        fields: { enabled: { type: 'toggle', default: false }, f: { type: 'text', available: 'maybe' } },
      },
    }),
  )
  t.same(
    odd.services.map((s) => [s.key, s.fields.map((f) => f.key)]),
    [['misc', ['f']]],
    'only "false" hides',
  )
  t.same(odd.warnings, [
    'services.misc: available "no" is neither true nor false; the service is shown',
    'services.misc.f: available "maybe" is neither true nor false; the field is shown',
  ])
})

t.test('widgets: number, dropdown and toggle values are checked by type', async (t) => {
  const catalog = prepareCatalog(doc({ db }))
  const f = Object.fromEntries(catalog.services[0].fields.map((x) => [x.key, x]))
  t.equal(validateField(f.size, 3), null)
  t.equal(validateField(f.size, '3'), 'Must be a number')
  t.equal(validateField(f.engine, 'pg'), null)
  t.equal(validateField(f.engine, 'mysql'), 'Must be one of: "pg"')
  t.equal(catalog.services[0].enabledDefault, false)
})

t.test("the wizard's check is the API's: the same values pass, a refusal is the API's clause as a sentence", async (t) => {
  const catalog = prepareCatalog(doc({ db }))
  const { catalog: typed } = catalogView(doc({ db }) as never)
  const samples: unknown[] = [3, 3.5, '3', 'pg', 'mysql', 'db.t4g.small', 'xx db', true, 'true', 'x'.repeat(2000)]
  for (const field of catalog.services[0].fields) {
    const ref = fieldAt(typed, `services.db.${field.key}`)!
    for (const value of samples) {
      const api = valueProblem(ref, value, testPattern)
      const wizard = validateField(field, value)
      t.equal(wizard === null, api === null, `${field.key} = ${JSON.stringify(value).slice(0, 20)}: ${api}`)
      if (api && !api.includes('(pattern ')) t.equal(wizard, api.charAt(0).toUpperCase() + api.slice(1))
    }
  }
  t.equal(
    validateField(
      catalog.services[0].fields.find((x) => x.key === 'class')!,
      'xx db',
    ),
    'This is not a valid class.',
    'a pattern in words, not the regex',
  )
})
