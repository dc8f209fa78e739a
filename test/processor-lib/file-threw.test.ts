// Spec "Template processor": a generation error for a file that threw during processing. A value the
// substituter cannot read (here a configuration getter that throws) refuses that one file with a
// READ_FAILED finding naming it; the other files are still examined, and no tree is returned.
import t from 'tap'
import { processFiles } from '@ies/processor-lib'

const input = (path: string, text: string) => ({ path, content: Buffer.from(text), mode: 0o644 })

t.test('a file whose processing throws is refused with READ_FAILED', async (t) => {
  const config = {
    get region(): string {
      throw new Error('the region is unreadable')
    },
    name: 'shop',
  }
  const result = processFiles(
    [input('a.tfvars', '# @param region\nregion = "eu-west-1"\n'), input('b.tfvars', '# @param name\nname = "demo"\n')],
    config,
  )
  t.equal(result.ok, false)
  t.same(result.files, [], 'no partial tree')
  t.same(result.refused, ['a.tfvars'])
  t.match(result.findings, [{ code: 'READ_FAILED', severity: 'error', file: 'a.tfvars', message: /the region is unreadable/ }])
  t.equal(result.inputCount, 2)
})
