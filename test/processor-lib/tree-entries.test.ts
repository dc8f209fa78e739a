// Reading and writing whole trees (processor-lib git-objects.ts): a tree the git CLI made, with a
// symbolic link, a submodule, an executable, a name that is not UTF-8 and names whose order differs
// between plain and git sorting, is read into entries and written back to the very same tree id;
// entries that cannot be one tree are refused instead of written.
import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { InvalidTreeError, readTreeEntries, writeEntriesTree } from '@ies/processor-lib/git-objects'
import { decodeName, encodeName } from '../../processor-lib/src/tree-object.ts'

const run = promisify(execFile)

t.test('a tree of every kind of entry is read and written back to the same id, and passes git fsck --strict', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-tree-entries-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const git = async (...args: string[]) =>
    (await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir })).stdout
  await git('init', '-q', '-b', 'main')
  await mkdir(path.join(dir, 'terraform', 'a'), { recursive: true })
  await writeFile(path.join(dir, 'README.md'), '# r\n')
  await writeFile(path.join(dir, 'run.sh'), '#!/bin/sh\n')
  await chmod(path.join(dir, 'run.sh'), 0o755)
  await symlink('../README.md', path.join(dir, 'terraform', 'OVERVIEW.md'))
  for (const name of ['a-b', 'a.tf', 'a/z', 'ä.tf']) await writeFile(path.join(dir, 'terraform', name), name)
  // A Latin-1 file name: the byte E9 alone, not UTF-8.
  await writeFile(Buffer.concat([Buffer.from(`${dir}/terraform/r`), Buffer.from([0xe9]), Buffer.from('gion.txt')]), 'latin-1 name\n')
  await git('add', '-A')
  await git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/mod`)
  await git('commit', '-q', '-m', 'every kind')
  const gitdir = path.join(dir, '.git')
  const head = (await git('rev-parse', 'HEAD')).trim()
  const entries = await readTreeEntries(gitdir, head)
  t.match(Object.fromEntries(entries), {
    'run.sh': { mode: '100755' },
    'terraform/OVERVIEW.md': { mode: '120000' },
    'vendor/mod': { mode: '160000', oid: '1'.repeat(40) },
    'terraform/r\udce9gion.txt': { mode: '100644' },
    'terraform/ä.tf': { mode: '100644' },
  })
  t.equal(await writeEntriesTree(gitdir, entries), (await git('rev-parse', 'HEAD^{tree}')).trim(), 'the same tree, byte for byte')
  entries.set('terraform/extras/NOTES.md', entries.get('README.md')!)
  const tree = await writeEntriesTree(gitdir, entries)
  await git('update-ref', 'refs/heads/written', (await git('commit-tree', tree, '-m', 'written')).trim())
  await t.resolves(git('fsck', '--strict', '--no-dangling'), 'git fsck --strict passes')
})

t.test('entries that cannot be one tree are refused', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-tree-refused-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await run('git', ['init', '-q', '--bare', dir])
  const blob = { oid: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', mode: '100644' as const }
  for (const paths of [['extras', 'extras/NOTES.md'], ['a/b/c', 'a/b'], ['.git/config'], ['a//b'], ['x/../y']]) {
    await t.rejects(writeEntriesTree(dir, new Map(paths.map((p) => [p, blob]))), InvalidTreeError, paths.join(' and '))
  }
})

t.test('names are strings losslessly: UTF-8 as itself, other bytes escaped and back', async (t) => {
  for (const bytes of [
    Buffer.from('plain.tf'),
    Buffer.from('ä€😀.tf'),
    Buffer.from([0x72, 0xe9, 0x67]),
    Buffer.from([0xc3, 0xff, 0xe2, 0x82]),
  ]) {
    t.same(encodeName(decodeName(bytes)), bytes, bytes.toString('hex'))
  }
  t.equal(decodeName(Buffer.from([0x72, 0xe9])), 'r\udce9')
})
