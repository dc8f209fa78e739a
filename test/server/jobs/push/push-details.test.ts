// What a push's job record keeps of the customer's files (server/src/jobs/push/push-details.ts):
// secret-looking lines left out of conflict hunks and diffs, and the caps.
import t from 'tap'
import {
  LEFT_OUT,
  MAX_RECORDED_BYTES,
  MAX_RECORDED_CONFLICTS,
  MAX_RECORDED_HUNKS,
  recordedChanges,
  recordedConflicts,
  withoutSecrets,
} from '../../../../server/src/jobs/push/push-details.ts'

t.test('secret-looking lines are left out, the others kept', async (t) => {
  const cases: [string, boolean][] = [
    ['db_password = "hunter2"', true],
    ['  api_key: abc123', true],
    ['"client_secret": "x"', true],
    ['- token=abc', true],
    ['auth = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"', true],
    ['-----BEGIN OPENSSH PRIVATE KEY-----', true],
    ['region = "eu-west-1"', false],
    ['domain = "shop.example.com"', false],
    ['# rotate the credentials yearly', false],
  ]
  for (const [line, secret] of cases) t.equal(withoutSecrets(`${line}\nkeep = 1\n`), `${secret ? LEFT_OUT : line}\nkeep = 1\n`, line)
  t.equal(withoutSecrets('+password = "x"\n a = 1\n', 1), `+${LEFT_OUT}\n a = 1\n`, "a diff line's marker is kept")
})

t.test('conflicts: hunks capped per file, per record and in bytes', async (t) => {
  const hunk = (n: number) => ({ line: n, ours: `a = ${n}\n`, base: 'a = 0\n', theirs: `token = "t${n}"\n` })
  const many = Array.from({ length: MAX_RECORDED_CONFLICTS + 2 }, (_, i) => ({
    file: `f${i}.tf`,
    kind: 'content' as const,
    hunks: Array.from({ length: MAX_RECORDED_HUNKS + 5 }, (_, n) => hunk(n)),
  }))
  const kept = recordedConflicts(many)
  t.equal(kept.length, many.length, 'every file is named')
  t.equal(kept[0].hunks.length, MAX_RECORDED_HUNKS)
  t.equal(kept[0].hunks[1].theirs, `${LEFT_OUT}\n`)
  t.same(kept.at(-1)!.hunks, [], 'files past the cap are named without hunks')
  const big = 'x = 1\n'.repeat(MAX_RECORDED_BYTES / 6)
  const heavy = recordedConflicts(
    [1, 2].map((i) => ({ file: `b${i}`, kind: 'content' as const, hunks: [{ line: 1, ours: big, base: '', theirs: '' }] })),
  )
  t.same(
    heavy.map((c) => c.hunks.length),
    [1, 0],
    'hunks stop at the byte cap',
  )
})

t.test('changes: diffs without secrets, emptied past the byte cap', async (t) => {
  const diff = '@@ -1 +1 @@\n-secret_value = "a"\n+secret_value = "b"\n'
  const big = `@@ -1 +1 @@\n${'+x = 1\n'.repeat(Math.floor((MAX_RECORDED_BYTES * 0.6) / 7))}`
  const kept = recordedChanges([
    { path: 'a.tf', change: 'modified', diff, truncated: false },
    { path: 'b.tf', change: 'modified', diff: big, truncated: false },
    { path: 'c.tf', change: 'modified', diff: big, truncated: false },
  ])
  t.equal(kept[0].diff, `@@ -1 +1 @@\n-${LEFT_OUT}\n+${LEFT_OUT}\n`)
  t.equal(kept[1].diff, big)
  t.same({ diff: kept[2].diff, truncated: kept[2].truncated }, { diff: '', truncated: true })
})
