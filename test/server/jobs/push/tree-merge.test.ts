// The push's tree and line merge, case by case: entries of every kind (links, submodules, execute
// bits), the generation record, a file against a folder, bytes that are not UTF-8, CRLF and a
// missing final newline (conflict markers compared with the real `git merge-file --diff3`), and
// the preview of each.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import type { EntryMode, TreeEntries, TreeEntry } from '@ies/processor-lib/git-objects'
import { mergeText } from '../../../../server/src/jobs/push/line-merge.ts'
import { changesOf } from '../../../../server/src/jobs/push/push-preview.ts'
import { mergeTrees, type TreeMerge } from '../../../../server/src/jobs/push/tree-merge.ts'

const run = promisify(execFile)
const LABELS = { ours: 'main', base: 'last generation', theirs: 'new generation' }

const store = new Map<string, Buffer>()
const put = (content: string | Buffer, mode: EntryMode = '100644'): TreeEntry => {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  const oid = createHash('sha1').update(bytes).digest('hex')
  store.set(oid, bytes)
  return { oid, mode }
}
const submodule = (oid: string): TreeEntry => ({ oid, mode: '160000' })
const tree = (entries: Record<string, TreeEntry>): TreeEntries => new Map(Object.entries(entries))
const read = async (oid: string) => {
  const content = store.get(oid)
  if (!content) throw new Error(`no blob ${oid} (a submodule's commit is never read)`)
  return content
}
const merge = (base: TreeEntries, ours: TreeEntries, theirs: TreeEntries) =>
  mergeTrees({ base, ours, theirs, read, write: async (content) => put(content).oid, labels: LABELS })
const contentOf = (m: TreeMerge, file: string) => store.get(m.entries.get(file)!.oid)!

const TF = 'variable "a" {}\nvariable "b" {}\nvariable "c" {}\n'
const LATIN1 = Buffer.from('# R\u00e9gion: caf\u00e9 cr\u00e8me\nregion = "eu"\ndomain = "a.example.com"\n', 'latin1')
const record = (at: string) => put(`{"generatedAt":"${at}"}\n`)

interface Case {
  name: string
  base: Record<string, TreeEntry>
  ours: Record<string, TreeEntry>
  theirs: Record<string, TreeEntry>
  entries?: Record<string, TreeEntry>
  conflicts?: { file: string; kind: string }[]
  check?: (t: Test, m: TreeMerge) => void
}

const link = put('../README.md', '120000')
const gitmodules = put('[submodule "vendor/mod"]\n\tpath = vendor/mod\n\turl = https://example.invalid/mod.git\n')
const tf = put(TF)
const tfEdited = put(TF.replace('"c"', '"c2"'))
const tfCustomer = put(`# ours\n${TF}`)
const notes = put('# notes\n')

const cases: Case[] = [
  {
    name: "a customer's symbolic link and submodule are kept through a change elsewhere",
    base: { 'main.tf': tf },
    ours: { 'main.tf': tf, 'terraform/OVERVIEW.md': link, 'vendor/mod': submodule('1'.repeat(40)), '.gitmodules': gitmodules },
    theirs: { 'main.tf': tfEdited },
    entries: { 'main.tf': tfEdited, 'terraform/OVERVIEW.md': link, 'vendor/mod': submodule('1'.repeat(40)), '.gitmodules': gitmodules },
  },
  {
    // `read` throws for an object the store lacks: the merge reads no object of an entry it keeps.
    name: 'entries naming objects nowhere to be read (a blob, a link, a submodule) are kept as they are',
    base: { 'main.tf': tf },
    ours: {
      'main.tf': tf,
      'data/big.bin': { oid: 'b'.repeat(40), mode: '100644' },
      'bin/tool': { oid: 'c'.repeat(40), mode: '100755' },
      current: { oid: 'd'.repeat(40), mode: '120000' },
      'vendor/net': submodule('0123456789abcdef0123456789abcdef01234567'),
    },
    theirs: { 'main.tf': tfEdited },
    entries: {
      'main.tf': tfEdited,
      'data/big.bin': { oid: 'b'.repeat(40), mode: '100644' },
      'bin/tool': { oid: 'c'.repeat(40), mode: '100755' },
      current: { oid: 'd'.repeat(40), mode: '120000' },
      'vendor/net': submodule('0123456789abcdef0123456789abcdef01234567'),
    },
  },
  {
    name: 'an execute bit the customer set is kept while the templates change the content',
    base: { 'run.sh': tf },
    ours: { 'run.sh': { ...tf, mode: '100755' } },
    theirs: { 'run.sh': tfEdited },
    entries: { 'run.sh': { ...tfEdited, mode: '100755' } },
  },
  {
    name: 'an execute bit the templates set meets a customer edit: both arrive',
    base: { 'run.sh': tf },
    ours: { 'run.sh': tfCustomer },
    theirs: { 'run.sh': { ...tfEdited, mode: '100755' } },
    check: (t, m) => {
      t.equal(m.entries.get('run.sh')!.mode, '100755')
      t.equal(contentOf(m, 'run.sh').toString(), `# ours\n${TF.replace('"c"', '"c2"')}`)
    },
  },
  {
    name: 'a generated file the customer turned into a link is kept while the templates leave it alone',
    base: { 'README.md': tf },
    ours: { 'README.md': link },
    theirs: { 'README.md': tf },
    entries: { 'README.md': link },
  },
  {
    name: 'a generated file the customer turned into a link, changed by the templates: a conflict, the link kept',
    base: { 'README.md': tf },
    ours: { 'README.md': link },
    theirs: { 'README.md': tfEdited },
    entries: { 'README.md': link },
    conflicts: [{ file: 'README.md', kind: 'binary' }],
  },
  {
    name: 'a submodule both moved differently is a conflict; one side moved takes it',
    base: { a: submodule('1'.repeat(40)), b: submodule('1'.repeat(40)) },
    ours: { a: submodule('2'.repeat(40)), b: submodule('2'.repeat(40)) },
    theirs: { a: submodule('3'.repeat(40)), b: submodule('1'.repeat(40)) },
    entries: { a: submodule('2'.repeat(40)), b: submodule('2'.repeat(40)) },
    conflicts: [{ file: 'a', kind: 'binary' }],
  },
  {
    name: 'the generation record is IES-owned: the new one wins over a customer edit',
    base: { '.ies/generation.json': record('1') },
    ours: { '.ies/generation.json': record('customer') },
    theirs: { '.ies/generation.json': record('2') },
    entries: { '.ies/generation.json': record('2') },
  },
  {
    name: "the customer's file against the templates' new folder",
    base: { 'terraform/main.tf': tf },
    ours: { 'terraform/main.tf': tf, 'terraform/extras': notes },
    theirs: { 'terraform/main.tf': tfEdited, 'terraform/extras/NOTES.md': notes },
    entries: { 'terraform/main.tf': tfEdited, 'terraform/extras': notes },
    conflicts: [{ file: 'terraform/extras', kind: 'file-folder' }],
  },
  {
    name: "the customer's folder against the templates' new file",
    base: { 'terraform/main.tf': tf },
    ours: { 'terraform/main.tf': tf, 'terraform/extras/NOTES.md': notes, 'terraform/extras/deep/x.md': notes },
    theirs: { 'terraform/main.tf': tf, 'terraform/extras': notes },
    entries: { 'terraform/main.tf': tf, 'terraform/extras/NOTES.md': notes, 'terraform/extras/deep/x.md': notes },
    conflicts: [{ file: 'terraform/extras', kind: 'file-folder' }],
  },
  {
    name: 'a deeper file against a folder: the shortest path conflicts, the branch keeps all below it',
    base: {},
    ours: { a: notes },
    theirs: { 'a/b/c': notes, 'a/b': tf },
    entries: { a: notes },
    conflicts: [{ file: 'a', kind: 'file-folder' }],
  },
  {
    name: 'a file the templates turned into a folder, untouched by the customer, becomes the folder',
    base: { extras: notes },
    ours: { extras: notes },
    theirs: { 'extras/NOTES.md': notes },
    entries: { 'extras/NOTES.md': notes },
  },
  {
    name: 'Latin-1 text is merged byte for byte',
    base: { 'terraform.tfvars': put('region = "eu"\ndomain = "a.example.com"\n') },
    ours: { 'terraform.tfvars': put(LATIN1) },
    theirs: { 'terraform.tfvars': put('region = "eu"\ndomain = "b.example.com"\n') },
    check: (t, m) =>
      t.same(
        contentOf(m, 'terraform.tfvars'),
        Buffer.from('# R\u00e9gion: caf\u00e9 cr\u00e8me\nregion = "eu"\ndomain = "b.example.com"\n', 'latin1'),
      ),
  },
  {
    name: 'a binary file both changed is a conflict; one side changed takes it',
    base: { 'a.bin': put(Buffer.from([0, 1])), 'b.bin': put(Buffer.from([0, 1])) },
    ours: { 'a.bin': put(Buffer.from([0, 2])), 'b.bin': put(Buffer.from([0, 2])) },
    theirs: { 'a.bin': put(Buffer.from([0, 3])), 'b.bin': put(Buffer.from([0, 1])) },
    entries: { 'a.bin': put(Buffer.from([0, 2])), 'b.bin': put(Buffer.from([0, 2])) },
    conflicts: [{ file: 'a.bin', kind: 'binary' }],
  },
  {
    name: 'a file the templates dropped: deleted when untouched, a conflict when edited',
    base: { 'a.tf': tf, 'b.tf': tf },
    ours: { 'a.tf': tf, 'b.tf': tfCustomer },
    theirs: {},
    entries: { 'b.tf': tfCustomer },
    conflicts: [{ file: 'b.tf', kind: 'deleted-in-templates' }],
  },
]

t.test('the tree merge, case by case', async (t) => {
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const m = await merge(tree(c.base), tree(c.ours), tree(c.theirs))
      if (c.entries) t.same(Object.fromEntries(m.entries), c.entries, 'the entries written')
      t.same(
        m.conflicts.map(({ file, kind }) => ({ file, kind })),
        c.conflicts ?? [],
        'the conflicts',
      )
      c.check?.(t, m)
      // Unchanged input gives an unchanged merge (nothing to commit), whatever the entries are.
      const again = await merge(tree(c.ours), tree(c.ours), tree(c.ours))
      t.same(Object.fromEntries(again.entries), c.ours, 'nothing to change: the branch as it is')
    })
  }
})

t.test('the preview shows modes, links, submodules, non-UTF-8 bytes and a file against a folder', async (t) => {
  const ours = tree({
    'run.sh': tf,
    'vendor/mod': submodule('1'.repeat(40)),
    'terraform.tfvars': put(LATIN1),
    'terraform/extras': notes,
  })
  const m = await merge(
    tree({ 'run.sh': tf, 'vendor/mod': submodule('1'.repeat(40)), 'terraform.tfvars': put(LATIN1) }),
    ours,
    tree({
      'run.sh': { ...tf, mode: '100755' },
      'vendor/mod': submodule('1'.repeat(40)),
      'terraform.tfvars': put(Buffer.from(LATIN1.toString('latin1').replace('a.example', 'b.example'), 'latin1')),
      'terraform/extras/NOTES.md': notes,
      'OVERVIEW.md': link,
    }),
  )
  const changes = Object.fromEntries((await changesOf(ours, m, read)).map((c) => [c.path, c]))
  t.same(Object.keys(changes).sort(), ['OVERVIEW.md', 'run.sh', 'terraform.tfvars', 'terraform/extras'])
  t.equal(changes['run.sh'].diff, 'old mode 100644\nnew mode 100755\n')
  t.match(changes['OVERVIEW.md'], {
    change: 'added',
    diff: /^new file mode 120000\n[\s\S]*\+\.\.\/README\.md\n\\ No newline at end of file/,
  })
  const tfvars = changes['terraform.tfvars'].diff
  t.match(tfvars, '-domain = "a.example.com"\n+domain = "b.example.com"\n')
  t.match(tfvars, ' # R\u00e9gion: caf\u00e9 cr\u00e8me\n', 'Latin-1 shown as the characters it encodes')
  t.notMatch(tfvars, '\ufffd', 'no byte is lost to U+FFFD')
  t.match(changes['terraform/extras'], { change: 'conflict', diff: /terraform\/extras is a file on one side and a folder on the other/ })

  // Only a byte that is not UTF-8 differs: the diff shows it (decoding both sides alike as UTF-8 hid it).
  const a = put(Buffer.from('x = "\xe9"\n', 'latin1'))
  const b = put(Buffer.from('x = "\xe8"\n', 'latin1'))
  const lossy = await changesOf(tree({ f: a }), await merge(tree({ f: a }), tree({ f: a }), tree({ f: b })), read)
  t.match(lossy[0].diff, '-x = "\u00e9"\n+x = "\u00e8"\n')
})

/** `git merge-file --diff3` with our labels: its output and exit status (the number of conflicts). */
async function gitMergeFile(dir: string, ours: Buffer, base: Buffer, theirs: Buffer) {
  const files = ['ours', 'base', 'theirs'].map((name) => path.join(dir, name))
  await Promise.all([ours, base, theirs].map((content, i) => writeFile(files[i], content)))
  const labels = [LABELS.ours, LABELS.base, LABELS.theirs].flatMap((l) => ['-L', l])
  const status = await run('git', ['merge-file', '--diff3', ...labels, ...files]).then(
    () => 0,
    (err: { code?: number }) => err.code ?? -1,
  )
  return { status, content: await readFile(files[0]) }
}

t.test('the line merge: CRLF and a missing final newline as git merge-file has them', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-line-merge-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const table: { name: string; base: string; ours: string; theirs: string; clean: boolean }[] = [
    {
      name: 'CRLF, changes apart',
      base: 'a\r\nb\r\nc\r\nd\r\n',
      ours: 'A\r\nb\r\nc\r\nd\r\n',
      theirs: 'a\r\nb\r\nc\r\nD\r\n',
      clean: true,
    },
    { name: 'CRLF, a conflict', base: 'a\r\nb\r\nc\r\n', ours: 'a\r\nB1\r\nc\r\n', theirs: 'a\r\nB2\r\nc\r\n', clean: false },
    { name: 'no final newline, changes apart', base: 'a\nb\nc\nd', ours: 'A\nb\nc\nd', theirs: 'a\nb\nc\nD', clean: true },
    { name: 'no final newline, a conflict at the end', base: 'a\nb\nc', ours: 'a\nb\nC1', theirs: 'a\nb\nC2', clean: false },
    { name: 'CRLF without a final newline, a conflict', base: 'a\r\nb\r\nc', ours: 'a\r\nb\r\nC1', theirs: 'a\r\nb\r\nC2', clean: false },
    { name: 'a final newline added on one side', base: 'a\nb\nc\nd', ours: 'A\nb\nc\nd', theirs: 'a\nb\nc\nd\n', clean: true },
    { name: 'mixed line ends, a conflict', base: 'a\nb\r\nc\n', ours: 'a\nB1\r\nc\n', theirs: 'a\nB2\nc\n', clean: false },
  ]
  for (const c of table) {
    const [ours, base, theirs] = [c.ours, c.base, c.theirs].map((s) => Buffer.from(s))
    const ourMerge = mergeText(ours, base, theirs, LABELS)
    const git = await gitMergeFile(dir, ours, base, theirs)
    t.equal(ourMerge.clean, c.clean, `${c.name}: ${c.clean ? 'clean' : 'a conflict'}`)
    t.equal(git.status === 0, c.clean, `${c.name}: git agrees`)
    t.same(ourMerge.clean ? ourMerge.content : ourMerge.marked, git.content, `${c.name}: the same bytes as git merge-file --diff3`)
  }
})
