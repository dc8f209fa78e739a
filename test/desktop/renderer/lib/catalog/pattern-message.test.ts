// Validation messages in words. The catalog's own message wins; else the
// pattern is explained for the shapes templates use; else the field's description. Every pattern
// of the static catalog gets a message without a regular expression in it.
import t from 'tap'
import { explainPattern, patternMessage } from '../../../../../processor-lib/src/contract/pattern-message.ts'
import { prepareCatalog, validateField } from '../../../../../desktop/src/renderer/lib/catalog/prepared-catalog.ts'
import staticCatalog from '../../../../../desktop/src/catalog/static-catalog.json' with { type: 'json' }

t.test('patterns explained', async (t) => {
  const cases: [string, string | null][] = [
    ['^[0-9]+$', 'a whole number'],
    ['^[1-9][0-9]*$', 'a whole number of 1 or more'],
    ['^[1-9][0-9]?$', 'a whole number from 1 to 99'],
    ['^[1-6]$', 'a whole number from 1 to 6'],
    ['^[1-9][0-9]{2,4}$', 'a whole number from 100 to 99999'],
    ['^[1-9][0-9]{0,2}$', 'a whole number from 1 to 999'],
    ['^[0-9]+([.]5)?$', 'a whole number or a half, such as 2 or 0.5'],
    ['^[a-z0-9][a-z0-9-]{0,19}$', '1 to 20 characters: lowercase letters, digits and hyphens, starting with a lowercase letter or a digit'],
    ['^[A-Za-z0-9_-]{1,64}$', '1 to 64 characters: letters, digits, hyphens and underscores'],
    ['^[a-z][a-z0-9-]{2,62}$', '3 to 63 characters: lowercase letters, digits and hyphens, starting with a lowercase letter'],
    ['^[a-z0-9-]+$', 'one or more characters: lowercase letters, digits and hyphens'],
    ['^([0-9]{1,3}[.]){3}[0-9]{1,3}/[12][0-9]$', null],
    ['^[^@]+$', null],
  ]
  for (const [source, words] of cases) t.equal(explainPattern(source), words, source)
})

t.test("the message: the catalog's own, the rule in words, or the description", async (t) => {
  t.equal(patternMessage({ label: 'Size', message: 'Between 1 and 5 nodes.' }, '^[1-5]$'), 'Between 1 and 5 nodes.')
  t.equal(patternMessage({ label: 'Size' }, '^[1-5]$'), 'Enter a whole number from 1 to 5.')
  t.equal(
    patternMessage({ label: 'CIDR', description: 'IPv4 range of the VPC' }, '^([0-9]{1,3}[.]){3}[0-9]{1,3}/[12][0-9]$'),
    'This is not a valid cidr. IPv4 range of the VPC.',
  )
})

t.test('every pattern of the static catalog: a message without a regular expression', async (t) => {
  const catalog = prepareCatalog(staticCatalog)
  const fields = [...Object.values(catalog.global), ...catalog.services.flatMap((s) => s.fields)].filter((f) => f.pattern)
  t.ok(fields.length > 20)
  for (const f of fields) {
    const message = validateField(f, '\u00a7 not valid \u00a7')
    t.ok(message, `${f.key} refuses the value`)
    t.notOk(message!.includes(f.rule!), `${f.key}: ${message}`)
    t.notMatch(message!, /[\^$[\]\\]/, `${f.key}: no regex syntax in "${message}"`)
  }
})
