/**
 * `npm run check:templates` on the ignore file and the generated README: a copy whose .iesignore
 * names a file that does not exist and whose README is the authors' guide fails with a finding at
 * each, and their fix lines. (The bundled tree passing, these checks included, is
 * check-templates.test.ts: one run of the whole check.)
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { repoRoot, templatesDir } from '../../templates/helpers.ts'
import { checkTemplates } from './check-templates.ts'

const work = mkdtempSync(join(tmpdir(), 'ies-check-ignore-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

t.test("an unmatched ignore pattern and the authors' guide as README are findings", async (t) => {
  const copy = join(work, 'templates')
  cpSync(templatesDir, copy, { recursive: true })
  writeFileSync(join(copy, '.iesignore'), 'AUTHORS.md\nAUTHOR-NOTES.md\n')
  writeFileSync(join(copy, 'README.md'), readFileSync(join(repoRoot, 'docs', 'template-authors.md')))
  const r = await checkTemplates([copy])
  t.equal(r.code, 1)
  t.match(r.stdout, /\.iesignore:2: IGNORE_UNMATCHED "AUTHOR-NOTES\.md" matches no file of the tree\n\s+fix: correct the pattern/)
  t.match(
    r.stdout,
    /README\.md:1: AUTHORS_GUIDE_OUTPUT the generated repository would get the authors' guide: a heading for template authors\n\s+fix: keep the README the hand-over/,
  )
  t.match(r.stdout, /check:templates: 2 finding\(s\) in 2 file\(s\)/)
})
