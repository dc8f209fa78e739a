// `npm run check:templates` on migrations: the bundled tree's migrations fit its catalog; in a copy,
// a step naming a field the catalog does not have, a value a dropdown does not offer and a step of
// an unknown kind are each a MIGRATION finding at the file and line of the step, with its fix line.
// Terraform and the scanners are left out: the copy differs from templates/ in its migrations only,
// and check-templates.test.ts runs them over templates/.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { templatesDir } from '../../templates/helpers.ts'
import { checkTemplates } from './check-templates.ts'

const work = mkdtempSync(join(tmpdir(), 'ies-check-migrations-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

t.test('bad migrations are findings at their file and line', async (t) => {
  const copy = join(work, 'templates')
  cpSync(templatesDir, copy, { recursive: true })
  writeFileSync(
    join(copy, 'migrations', '0003-node-count.yaml'),
    `id: 0003-node-count
description: the node count knob is renamed
steps:
  - rename:
      from: services.eks.nodeCount
      to: services.eks.nodeDesired
  - map:
      path: services.rds.engineVersion
      values: { "16.6": "16.9" }
`,
  )
  writeFileSync(
    join(copy, 'migrations', '0004-typo.yaml'),
    'id: 0004-typo\ndescription: d\nsteps:\n  - renam: { from: region, to: domain }\n',
  )
  const r = await checkTemplates([copy])
  t.equal(r.code, 1, r.stdout)
  t.match(
    r.stdout,
    /migrations\/0003-node-count\.yaml:6: MIGRATION rename: the catalog has no field services\.eks\.nodeDesired\n\s+fix: correct the step/,
  )
  t.match(
    r.stdout,
    /migrations\/0003-node-count\.yaml:8: MIGRATION map: "16\.9" for services\.rds\.engineVersion must be one of: "16", "17", "18"/,
  )
  t.match(r.stdout, /migrations\/0004-typo\.yaml:4: MIGRATION unknown step "renam"/)
  t.match(r.stdout, /check:templates: 3 finding\(s\) in 2 file\(s\)/)
})
