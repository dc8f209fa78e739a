// The words a template declares for the assistant: `unit=` on a field and `synonyms=` on a field or
// a module are carried by the catalog as written, and the typed view reads synonyms as a list.
import t from 'tap'
import { buildCatalog, extractCatalog } from '@ies/processor-lib'
import { languageOf } from '../../processor-lib/src/languages.ts'
import { catalogView } from '../../processor-lib/src/contract/view.ts'

const TFVARS = `# @module services.sqs | displayName=SQS | synonyms=queue, message bus
# @param services.sqs.enabled
sqs_enabled = false
# @param services.sqs.retention | displayName=Retention (s) | type=number | unit=s | synonyms=survive , kept,,
sqs_retention = 345600
# @param services.sqs.name | displayName=Name | type=text
sqs_name = "jobs"
`

const doc = buildCatalog('terraform/terraform.tfvars', TFVARS, languageOf('terraform/terraform.tfvars')!, 'c0')

t.test('the extractor carries unit and synonyms as written', async (t) => {
  t.same(doc.errors, [])
  t.equal(doc.services.sqs.synonyms, 'queue, message bus')
  t.match(doc.services.sqs.fields.retention, { unit: 's', synonyms: 'survive , kept,,' })
  t.notOk('unit' in doc.services.sqs.fields.name, 'no unit when none is declared')
  t.notOk('synonyms' in doc.services.sqs.fields.name)
})

t.test('the typed view reads synonyms as a list of words', async (t) => {
  const { catalog, warnings } = catalogView(doc)
  t.same(warnings, [])
  t.same(catalog.services.sqs.synonyms, ['queue', 'message bus'])
  t.same(catalog.services.sqs.fields.retention.synonyms, ['survive', 'kept'])
  t.equal(catalog.services.sqs.fields.retention.unit, 's')
  t.equal(catalog.services.sqs.fields.name.synonyms, undefined)
})

t.test('the bundled templates declare the units of their quantities', async (t) => {
  const bundled = await extractCatalog({ templatesDir: 'templates', provider: 'aws' })
  const units = Object.fromEntries(
    Object.entries(bundled.services).flatMap(([key, s]) =>
      Object.entries(s.fields).flatMap(([field, f]) => (f.unit ? [[`${key}.${field}`, f.unit]] : [])),
    ),
  )
  t.match(units, {
    'sqs.messageRetentionSeconds': 's',
    'rds.backupRetentionDays': 'days',
    'rds.allocatedStorage': 'GiB',
    'lambda.memorySize': 'MiB',
    'vpc.flowLogRetentionDays': 'days',
  })
  // Every field whose label names a unit declares it.
  for (const [key, s] of Object.entries(bundled.services))
    for (const [field, f] of Object.entries(s.fields))
      if (/\((s|days|GiB|MB)\)$/.test(f.displayName)) t.ok(f.unit, `services.${key}.${field} (${f.displayName}) declares its unit`)
})
