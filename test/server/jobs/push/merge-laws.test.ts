// The laws of the push's three-way merge, checked with fast-check on random files and trees: an
// unchanged side takes the other, identical changes merge to themselves, a change only the customer
// made is always kept, and a clean merge is byte-identical to the real `git merge-file` whenever
// git merges cleanly too. Contents mix LF and CRLF lines, Latin-1 and UTF-8 bytes and a last line
// without its line end.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import fc from 'fast-check'
import t from 'tap'
import type { EntryMode, TreeEntries } from '@ies/processor-lib/git-objects'
import { mergeText } from '../../../../server/src/jobs/push/line-merge.ts'
import { mergeTrees } from '../../../../server/src/jobs/push/tree-merge.ts'

const run = promisify(execFile)
const LABELS = { ours: 'main', base: 'last generation', theirs: 'new generation' }

/** Lines of a few kinds: LF, CRLF, UTF-8 and Latin-1 bytes, so that random files share lines often. */
const LINE = fc.constantFrom(
  ...['a\n', 'b\n', 'c\n', 'd\n', 'a\r\n', 'b\r\n', '\n', 'caf\u00e9 utf-8\n'].map((s) => Buffer.from(s, 'utf8')),
  Buffer.from('caf\u00e9 latin-1\n', 'latin1'),
)

/** A file: lines, the last one maybe without its line end. */
const FILE = fc.tuple(fc.array(LINE, { maxLength: 8 }), fc.boolean()).map(([lines, cut]) => {
  const content = Buffer.concat(lines)
  return cut && content.length > 0 && content[content.length - 1] === 0x0a ? content.subarray(0, -1) : content
})

/** A file and an edit of it: lines replaced, inserted or removed at random places. */
const EDIT = (base: Buffer) =>
  fc.array(fc.tuple(fc.nat(10), fc.nat(2), fc.array(LINE, { maxLength: 2 })), { maxLength: 3 }).map((edits) => {
    const lines = base
      .toString('latin1')
      .split(/(?<=\n)/)
      .filter(Boolean)
    for (const [at, remove, insert] of edits) lines.splice(at % (lines.length + 1), remove, ...insert.map((l) => l.toString('latin1')))
    return Buffer.from(lines.join(''), 'latin1')
  })

const THREE = FILE.chain((base) => fc.tuple(fc.constant(base), EDIT(base), EDIT(base)))

/** Each line once (the later repeats dropped). */
const distinctLines = (content: Buffer) => Buffer.from([...new Set(content.toString('latin1').split(/(?<=\n)/))].join(''), 'latin1')

/**
 * Three versions in which no line repeats within a file. Where a line repeats, a diff may place an
 * insertion before or after its twin: git's xdiff slides it down, node-diff3 leaves it up, and two
 * equally valid clean merges can then differ (base `c a X`, ours `c a a X`, theirs `a a X`: git
 * `a a a X`, node-diff3 `a a X`). Without repeats each diff has one placement.
 */
const THREE_DISTINCT = THREE.map((sides) => sides.map(distinctLines) as [Buffer, Buffer, Buffer])

const merged = (ours: Buffer, base: Buffer, theirs: Buffer) => {
  const result = mergeText(ours, base, theirs, LABELS)
  return result.clean ? result.content : null
}

t.test('an unchanged side takes the other, byte for byte', async (t) => {
  fc.assert(
    fc.property(THREE, ([base, ours, theirs]) => {
      t.same(merged(base, base, theirs), theirs)
      t.same(merged(ours, base, base), ours)
    }),
    { numRuns: 300 },
  )
})

t.test('identical changes merge to themselves', async (t) => {
  fc.assert(
    fc.property(THREE, ([base, ours]) => {
      t.same(merged(ours, base, ours), ours)
    }),
    { numRuns: 300 },
  )
})

t.test('a clean merge is byte-identical to git merge-file where git merges cleanly too (no line repeated)', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-merge-laws-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const files = ['ours', 'base', 'theirs'].map((name) => path.join(dir, name))
  let bothClean = 0
  let compared = 0
  await fc.assert(
    fc.asyncProperty(THREE_DISTINCT, async ([base, ours, theirs]) => {
      await Promise.all([ours, base, theirs].map((content, i) => writeFile(files[i], content)))
      // Exit status: the number of conflicts (0: clean); the result is written to the first file.
      const status = await run('git', ['merge-file', ...files]).then(
        () => 0,
        (err: { code?: number }) => err.code ?? -1,
      )
      if (status < 0) throw new Error('git merge-file did not run')
      const ourMerge = merged(ours, base, theirs)
      compared++
      if (status !== 0 || ourMerge === null) return true
      bothClean++
      // A failure names the three files (shrunk by fast-check) in the thrown error.
      return ourMerge.equals(await readFile(files[0]))
    }),
    { numRuns: 250 },
  )
  t.ok(bothClean > compared / 4, `both clean in ${bothClean} of ${compared} cases: the law was really exercised`)
})

/** Random trees over a few paths, entries of every kind; blobs live in `store`. */
const store = new Map<string, Buffer>()
const blob = (content: Buffer) => {
  const oid = createHash('sha1').update(content).digest('hex')
  store.set(oid, content)
  return oid
}
/** `docs` and `docs/OVERVIEW.md` make a file meet a folder. */
const PATHS = ['main.tf', 'run.sh', 'docs', 'docs/OVERVIEW.md', 'vendor/mod', 'terraform/team.tf']

/** The paths that are a file and also a folder of other paths (none in a tree git can hold). */
const fileAndFolder = (entries: TreeEntries) =>
  [...entries.keys()].filter((file) => [...entries.keys()].some((other) => other.startsWith(`${file}/`)))
const ENTRY = fc.oneof(
  FILE.map((content) => ({ oid: blob(content), mode: '100644' as EntryMode })),
  FILE.map((content) => ({ oid: blob(content), mode: '100755' as EntryMode })),
  fc.constantFrom('../README.md', 'main.tf').map((target) => ({ oid: blob(Buffer.from(target)), mode: '120000' as EntryMode })),
  fc.constantFrom('1'.repeat(40), '2'.repeat(40)).map((oid) => ({ oid, mode: '160000' as EntryMode })),
)
const TREE = fc
  .dictionary(fc.constantFrom(...PATHS), ENTRY, { maxKeys: PATHS.length })
  .map((d) => new Map(Object.entries(d)) as TreeEntries)
  .filter((tree) => fileAndFolder(tree).length === 0)

const mergeOf = (base: TreeEntries, ours: TreeEntries, theirs: TreeEntries) =>
  mergeTrees({
    base,
    ours,
    theirs,
    labels: LABELS,
    read: async (oid) => store.get(oid)!,
    write: async (content) => blob(content),
  })

t.test(
  "a tree merge keeps every entry only the customer changed, takes the other side's where the customer changed nothing, and is a valid tree",
  async (t) => {
    let folderConflicts = 0
    await fc.assert(
      fc.asyncProperty(TREE, TREE, TREE, async (base, ours, theirs) => {
        const merge = await mergeOf(base, ours, theirs)
        if (merge.conflicts.some((c) => c.kind === 'file-folder')) folderConflicts++
        for (const file of PATHS) {
          const [b, o, th] = [base.get(file), ours.get(file), theirs.get(file)]
          const same = (x: typeof b, y: typeof b) => x?.oid === y?.oid && x?.mode === y?.mode
          if (same(b, th)) t.same(merge.entries.get(file), o, `${file}: only the customer changed it (or no one): the branch's`)
          const folderConflict = merge.conflicts.some((c) => c.kind === 'file-folder' && (file === c.file || file.startsWith(`${c.file}/`)))
          if (same(b, o) && !folderConflict)
            t.same(merge.entries.get(file), th, `${file}: the customer changed nothing: the new generation's`)
        }
        t.same([fileAndFolder(merge.entries), fileAndFolder(merge.marked)], [[], []], 'the merge is a tree git can hold')
        t.same(await mergeOf(base, ours, ours), { entries: ours, marked: ours, conflicts: [] }, 'identical sides merge to themselves')
      }),
      { numRuns: 200 },
    )
    t.ok(folderConflicts > 0, `a file met a folder in ${folderConflicts} runs`)
  },
)
