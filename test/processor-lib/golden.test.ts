// Golden-file tests of the decorator language: every case folder under fixtures/cases holds an
// `input.<ext>`, optionally `config.json` (else fixtures/config.json) and `options.json`, and the
// expected `expected.<ext>` (absent when the file is refused) and `findings.txt`.
// Regenerate after an intended change with UPDATE_GOLDEN=1, then review the diff.
import { existsSync } from 'node:fs'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { formatFinding, processFiles } from '@ies/processor-lib'

const here = dirname(fileURLToPath(import.meta.url))
const casesDir = join(here, 'fixtures', 'cases')
const update = process.env.UPDATE_GOLDEN === '1'
const defaultConfig = JSON.parse(await readFile(join(here, 'fixtures', 'config.json'), 'utf8'))

const cases = (await readdir(casesDir, { withFileTypes: true }))
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()

for (const name of cases) {
  t.test(name, async (t) => {
    const dir = join(casesDir, name)
    const files = await readdir(dir)
    const inputName = files.find((f) => f.startsWith('input.'))!
    const ext = inputName.slice('input'.length)
    const input = await readFile(join(dir, inputName))
    const config = files.includes('config.json') ? JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) : defaultConfig
    const options = files.includes('options.json') ? JSON.parse(await readFile(join(dir, 'options.json'), 'utf8')) : {}
    const result = processFiles([{ path: inputName, content: input, mode: 0o644 }], config, options)
    const findingsText = result.findings.map(formatFinding).join('\n') + (result.findings.length ? '\n' : '')
    const expectedPath = join(dir, `expected${ext}`)
    const output = result.ok ? Buffer.from(result.files[0].content) : null

    if (update) {
      if (output) await writeFile(expectedPath, output)
      else await rm(expectedPath, { force: true })
      await writeFile(join(dir, 'findings.txt'), findingsText)
    }
    t.equal(findingsText, await readFile(join(dir, 'findings.txt'), 'utf8'), 'findings')
    if (name.startsWith('refused-')) {
      t.notOk(result.ok, 'the file is refused')
      t.same(result.files, [], 'nothing is emitted for a refused file')
      t.notOk(existsSync(expectedPath))
      return
    }
    t.ok(result.ok, 'the file is processed')
    t.equal(output!.toString('utf8'), await readFile(expectedPath, 'utf8'), 'output')
    t.equal(output!.toString().split('\n').length, input.toString().split('\n').length, 'line count kept')
  })
}

t.test('processing twice gives the same bytes (deterministic)', async (t) => {
  const dir = join(casesDir, 'hcl-sections')
  const input = await readFile(join(dir, 'input.tf'))
  const a = processFiles([{ path: 'a.tf', content: input, mode: 0o644 }], defaultConfig)
  const b = processFiles([{ path: 'a.tf', content: input, mode: 0o644 }], defaultConfig)
  t.same(a, b)
})
