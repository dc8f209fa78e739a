// The file-count check of a generated tree (spec "Template processor": a generation error for a
// file-count mismatch): outputFindings compares produced paths with expected ones, checkArchive
// reads a zip's entries and raises GENERATION_FAILED with MISSING_OUTPUT findings when they differ.
import t from 'tap'
import { zipTree } from '@ies/processor-lib'
import { archiveEntries, checkArchive, outputFindings } from '@ies/processor-lib/tree'

const file = (path: string) => ({ path, content: `${path}\n`, mode: 0o644 })

t.test('outputFindings: absent, unexpected and repeated paths, and the count', async (t) => {
  const check = (expected: string[], produced: string[]) =>
    outputFindings(expected, produced).map((f) => {
      t.match(f, { code: 'MISSING_OUTPUT', severity: 'error', line: 0 })
      return [f.file, f.message]
    })
  t.same(check(['a.tf', 'b/c.yaml'], ['b/c.yaml', 'a.tf']), [], 'the same paths in any order: nothing')
  t.same(check(['a.tf', 'b.tf', 'terraform/backend.tf'], ['a.tf', 'b.tf']), [
    ['.', '2 files in the output for 3 expected'],
    ['terraform/backend.tf', 'expected in the output but absent'],
  ])
  t.same(check(['a.tf'], ['a.tf', 'a.tf']), [
    ['.', '2 files in the output for 1 expected'],
    ['a.tf', 'appears more than once in the output'],
  ])
  t.same(check(['a.tf'], ['a.tf', 'stray.tf']), [
    ['.', '2 files in the output for 1 expected'],
    ['stray.tf', 'in the output but not expected'],
  ])
  t.same(
    check(['a.tf', 'b.tf'], ['a.tf', 'c.tf']),
    [
      ['b.tf', 'expected in the output but absent'],
      ['c.tf', 'in the output but not expected'],
    ],
    'same count, other names',
  )
})

t.test('checkArchive: a zip short of the expected files is a generation error', async (t) => {
  const zip = await zipTree([file('terraform/main.tf'), file('terraform/terraform.tfvars')])
  t.same(await archiveEntries(zip), ['terraform/main.tf', 'terraform/terraform.tfvars'])
  await t.resolves(checkArchive(zip, ['terraform/terraform.tfvars', 'terraform/main.tf']), 'every expected file: no error')
  await t.rejects(checkArchive(zip, ['terraform/main.tf', 'terraform/terraform.tfvars', 'terraform/backend.tf']), {
    name: 'ProcessorError',
    code: 'GENERATION_FAILED',
    message: 'the generated archive does not hold the expected files (1 differ)',
    details: {
      refused: ['terraform/backend.tf'],
      findings: [
        { code: 'MISSING_OUTPUT', file: '.', message: '2 files in the output for 3 expected' },
        { code: 'MISSING_OUTPUT', file: 'terraform/backend.tf' },
      ],
    },
  })
  const err = (await checkArchive(zip, ['terraform/main.tf', 'terraform/terraform.tfvars', 'terraform/backend.tf']).catch(
    (e: unknown) => e,
  )) as { details: { findings: unknown[] } }
  t.equal(err.details.findings.length, 2, 'exactly those two findings')
  await t.rejects(
    checkArchive(zip, ['terraform/main.tf']),
    { code: 'GENERATION_FAILED', details: { refused: ['terraform/terraform.tfvars'] } },
    'an extra entry too',
  )
  await t.rejects(checkArchive(Buffer.from('not a zip'), ['a.tf']), { code: 'GENERATION_FAILED', message: /cannot be read/ })
})
