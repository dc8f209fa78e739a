// docs/history.md lists every kind of change the server records: the table "What is recorded" has
// one row per kind of CHANGE_KINDS (api/src/schemas/history.ts, the type every `app.history.record`
// call is checked against), and no row for a kind that no longer exists.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHANGE_KINDS } from '@ies/api/schemas/history'

const HISTORY_MD = join(import.meta.dirname, '..', '..', 'docs', 'history.md')

/** The kinds named in the first column of the table under "## What is recorded". */
function documentedKinds(markdown: string): string[] {
  const section = markdown.split('\n## What is recorded\n')[1]?.split('\n## ')[0] ?? ''
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!))
}

t.test('docs/history.md names every kind the server records', async (t) => {
  const documented = documentedKinds(readFileSync(HISTORY_MD, 'utf8'))
  for (const kind of CHANGE_KINDS)
    t.ok(documented.includes(kind), `docs/history.md has a row for \`${kind}\` (add one to "What is recorded")`)
  t.same(
    documented.filter((k) => !(CHANGE_KINDS as readonly string[]).includes(k)),
    [],
    'and none for a kind the server does not record',
  )
})

t.test('the reader of the table sees a missing row', async (t) => {
  const doctored = readFileSync(HISTORY_MD, 'utf8').replace(/^\| `migrate` .*\n/m, '')
  t.notOk(documentedKinds(doctored).includes('migrate'))
  t.ok(documentedKinds(doctored).includes('delete'))
})
