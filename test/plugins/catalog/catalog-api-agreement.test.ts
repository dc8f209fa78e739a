// The wizard validates global fields with the catalog's patterns and the API with its own schemas:
// both must give the same answer, or the wizard accepts what the server then refuses (or the
// reverse). Checked on sample values for `name` and `globalPrefix` (lengths the catalog's pattern
// does not bound are the wizard's length rule, environment-rules.ts, and the API's maxLength).
import t from 'tap'
import { Value } from '@sinclair/typebox/value'
import { extractCatalog } from '@ies/processor-lib'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { GLOBAL_PREFIX_MAX, GlobalPrefix, Name } from '@ies/api/schemas/environments'

const catalog = await extractCatalog({ templatesDir: BUNDLED_TEMPLATES_DIR, provider: 'aws' })

const samples = {
  globalPrefix: [
    'a',
    'ab',
    'ies',
    'a1',
    '1a',
    'ab-',
    '-ab',
    'a-b',
    'a--b',
    'my-org-prod',
    'A',
    'a_b',
    'a'.repeat(GLOBAL_PREFIX_MAX),
    'a-'.repeat(9) + 'ab',
  ],
  name: ['ab', 'abc', 'shop-prod', 'a-b', 'Shop', '1abc', 'a'.repeat(50), 'a_bc'],
}
const schemas = { globalPrefix: GlobalPrefix, name: Name }

for (const [field, values] of Object.entries(samples) as [keyof typeof samples, string[]][]) {
  t.test(`${field}: catalog pattern and API schema agree`, async (t) => {
    const pattern = catalog.global.fields[field]?.pattern
    t.type(pattern, 'string', 'the catalog has a pattern')
    const re = new RegExp(pattern as string)
    for (const value of values) t.equal(re.test(value), Value.Check(schemas[field], value), `"${value}"`)
  })
}
