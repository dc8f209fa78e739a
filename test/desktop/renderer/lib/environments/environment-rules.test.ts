// The basics the wizard checks as the user types must say exactly what the server's schema says
// (api/src/schemas/environments.ts is the authority): spec examples plus random strings.
import t from 'tap'
import fc from 'fast-check'
import { Value } from '@sinclair/typebox/value'
import { Domain, DriftCheckHours, GlobalPrefix, Name, Region } from '@ies/api/schemas/environments'
import {
  checkDomain,
  checkDriftCheckHours,
  checkGlobalPrefix,
  checkName,
  checkRegion,
} from '../../../../../desktop/src/renderer/lib/environments/rules.ts'

const RULES = [
  {
    what: 'name',
    schema: Name,
    check: checkName,
    samples: ['dev', 'my-env-1', 'a'.repeat(50), 'ab', 'a'.repeat(51), '1dev', 'Dev', 'dev_1', '-dev', ''],
  },
  {
    what: 'globalPrefix',
    schema: GlobalPrefix,
    check: checkGlobalPrefix,
    samples: ['acme', 'ab', 'a', 'a-', 'a--b', 'a-b', '1a', 'x'.repeat(20), 'x'.repeat(21), ''],
  },
  { what: 'region', schema: Region, check: checkRegion, samples: ['eu-west-1', 'EU', 'us east', 'a'.repeat(32), 'a'.repeat(33), ''] },
  {
    what: 'domain',
    schema: Domain,
    check: checkDomain,
    samples: [
      '',
      'example.com',
      'apps.dev.example.co',
      'Example.COM',
      'localhost',
      'example.c0m',
      '-bad.example.com',
      'bad-.example.com',
      'bad..example.com',
      `${'a.'.repeat(125)}com`,
      `${'abcdefghij.'.repeat(25)}com`,
    ],
  },
]

const alphabet = fc.constantFrom(...'abcz019-.A_ '.split(''))

for (const rule of RULES) {
  t.test(`${rule.what}: the wizard agrees with the server's schema`, async (t) => {
    for (const s of rule.samples)
      t.equal(rule.check(s) === null, Value.Check(rule.schema, s), `${rule.what} ${JSON.stringify(s.slice(0, 40))}`)
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 70 }), (s) => (rule.check(s) === null) === Value.Check(rule.schema, s)),
      { numRuns: 3000 },
    )
  })
}

t.test("driftCheckHours: the wizard accepts exactly the whole hours the server's schema does, and empty for no schedule", async (t) => {
  const samples = ['1', '24', '720', '0', '721', '-1', '1.5', '24h', 'abc', ' 24 ', '007', '1e2', '0x10', '99999999999999999999']
  for (const s of samples)
    t.equal(
      checkDriftCheckHours(s) === null,
      Value.Check(DriftCheckHours, Number(s.trim())) && /^\s*\d+\s*$/.test(s),
      `hours ${JSON.stringify(s)}`,
    )
  fc.assert(
    fc.property(
      fc.integer({ min: -100, max: 2000 }),
      (n) => (checkDriftCheckHours(String(n)) === null) === Value.Check(DriftCheckHours, n),
    ),
    { numRuns: 2000 },
  )
  t.equal(checkDriftCheckHours(''), null, 'empty: only when asked')
  t.match(checkDriftCheckHours('0'), /from 1 to 720/, 'the message names the range')
  t.match(checkDriftCheckHours('1.5'), /whole number/)
})
