// The templates directory is live: the cached tree read is reused only while nothing in it changed.
// A watched directory (tree-watch.ts) is not even looked at while no watcher reported anything. On
// the real filesystem and with the real git CLI; the first test runs with and without watching.
import { createHook } from 'node:async_hooks'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmdirSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { directorySource } from '@ies/server/templates/templates'
import type { TemplatesSource } from '@ies/server/templates/source'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { GIT_ENV } from '../../harness/git-env.ts'
import { eventually } from '../../harness/eventually.ts'

const run = promisify(execFile)

async function tempDir(t: Test, prefix = 'ies-templates-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

function sourceOf(t: Test, dir: string, watch = true): TemplatesSource {
  const source = directorySource(dir, { watch })
  t.teardown(() => source.close?.())
  return source
}

async function files(source: TemplatesSource): Promise<Record<string, string>> {
  return Object.fromEntries((await source.load()).inputs.map((f) => [f.path, f.content.toString('utf8')]))
}

/** `f`'s result and how many filesystem requests (fs callbacks and promises: stat, readdir, open…) it made. */
async function fsRequests<T>(f: () => Promise<T>): Promise<{ value: T; requests: number }> {
  let requests = 0
  const hook = createHook({
    init: (_id, type) => {
      if (type.startsWith('FSREQ')) requests++
    },
  }).enable()
  try {
    const value = await f()
    return { value, requests }
  } finally {
    hook.disable()
  }
}

for (const watch of [true, false]) {
  t.test(`a directory source sees every change on the next load (${watch ? 'watched' : 'not watched'})`, async (t) => {
    const dir = await tempDir(t)
    await writeFile(path.join(dir, 'a.tf'), 'value = "one"\n')
    const source = sourceOf(t, dir, watch)

    const first = await source.load()
    t.same(await files(source), { 'a.tf': 'value = "one"\n' })
    t.equal((await source.load()).inputs, first.inputs, 'unchanged: the cached read')
    const clean = await fsRequests(() => source.load())
    t.equal(clean.value.inputs, first.inputs)
    if (watch) t.equal(clean.requests, 0, 'unchanged and watched: no filesystem request at all')
    else t.ok(clean.requests > 0, 'not watched: the fingerprint is taken on every load')

    await writeFile(path.join(dir, 'a.tf'), 'value = "two"\n') // same size
    t.equal((await files(source))['a.tf'], 'value = "two"\n', 'an edit of the same size')
    t.not((await source.load()).commit, first.commit, 'a new commit (content hash)')

    await writeFile(path.join(dir, 'b.tf'), 'x = 1\n')
    t.same(Object.keys(await files(source)), ['a.tf', 'b.tf'], 'an added file')

    await rename(path.join(dir, 'b.tf'), path.join(dir, 'c.tf'))
    t.same(Object.keys(await files(source)), ['a.tf', 'c.tf'], 'a renamed file')

    await unlink(path.join(dir, 'c.tf'))
    t.same(Object.keys(await files(source)), ['a.tf'], 'a removed file')

    await mkdir(path.join(dir, 'sub'))
    await writeFile(path.join(dir, 'sub/d.tf'), 'd = 1\n')
    await files(source)
    await rename(path.join(dir, 'sub'), path.join(dir, 'moved'))
    t.same(Object.keys(await files(source)), ['a.tf', 'moved/d.tf'], 'a renamed directory')
    await writeFile(path.join(dir, 'moved/d.tf'), 'd = 2\n')
    t.equal((await files(source))['moved/d.tf'], 'd = 2\n', 'and an edit inside it')
  })
}

t.test('a watched source sees a change made just before the load, even from the same event-loop turn', async (t) => {
  const dir = await tempDir(t)
  const file = path.join(dir, 'a.tf')
  await writeFile(file, 'n = 0\n')
  const source = sourceOf(t, dir)
  await source.load()
  for (let i = 1; i <= 30; i++) {
    // Resumed from an I/O callback (the poll phase, where Node reads inotify), then a synchronous
    // write: its event is queued in the kernel, not yet delivered, when load() is called.
    await readFile(file)
    writeFileSync(file, `n = ${i}\n`)
    const seen = (await files(source))['a.tf']
    if (seen !== `n = ${i}\n`) return t.fail(`write ${i}: the load answered ${JSON.stringify(seen)}`)
    const clean = await fsRequests(() => source.load())
    if (clean.requests !== 0) return t.fail(`write ${i}: the load after it looked again (${clean.requests} requests)`)
  }
  t.pass('every write seen by the load right after it, and nothing looked at again after that')
})

t.test('a change made while a check runs is not lost', async (t) => {
  const dir = await tempDir(t)
  const file = path.join(dir, 'a.tf')
  await writeFile(file, 'n = 0\n')
  await Promise.all(Array.from({ length: 20 }, (_, i) => writeFile(path.join(dir, `z${i}.tf`), `z = ${i}\n`)))
  const source = sourceOf(t, dir)
  await source.load()
  const turn = () => new Promise((resolve) => setImmediate(resolve))
  for (let i = 1; i <= 60; i++) {
    // An event that leaves the fingerprint as it was (or, every other time, an edit that does not), so
    // the load checks; the edit lands at some point of that check (the watchers being set, the
    // fingerprint taken, the files read): whichever it is, a later load sees it.
    if (i % 2) writeFileSync(path.join(dir, 'b.tf'), `b = ${i}\n`)
    else rmdirSync(mkdtempSync(path.join(dir, 'tmp-')))
    const checking = source.load()
    for (let k = i % 20; k > 0; k--) await turn()
    writeFileSync(file, `n = ${i}\n`)
    await checking
    const seen = (await files(source))['a.tf']
    if (seen !== `n = ${i}\n`) return t.fail(`edit ${i}: the next load answered ${JSON.stringify(seen)}`)
  }
  t.pass('every edit made during a check seen by the next load')
})

t.test('a directory added after the first load is watched from the next check on', async (t) => {
  const dir = await tempDir(t)
  await writeFile(path.join(dir, 'a.tf'), 'a = 1\n')
  const source = sourceOf(t, dir)
  await source.load()

  await mkdir(path.join(dir, 'new/deeper'), { recursive: true })
  await writeFile(path.join(dir, 'new/deeper/b.tf'), 'b = 1\n')
  t.same(await files(source), { 'a.tf': 'a = 1\n', 'new/deeper/b.tf': 'b = 1\n' }, 'a file in a new directory')
  t.equal((await fsRequests(() => source.load())).requests, 0, 'then clean again')

  await writeFile(path.join(dir, 'new/deeper/b.tf'), 'b = 2\n')
  t.equal((await files(source))['new/deeper/b.tf'], 'b = 2\n', 'an edit inside the new directory')

  await mkdir(path.join(dir, 'empty'))
  t.same(Object.keys(await files(source)), ['a.tf', 'new/deeper/b.tf'], 'an empty directory: no file')
  await writeFile(path.join(dir, 'empty/c.tf'), 'c = 1\n')
  t.equal((await files(source))['empty/c.tf'], 'c = 1\n', 'a file in a directory that was empty at the last check')

  await rm(path.join(dir, 'new'), { recursive: true })
  t.same(Object.keys(await files(source)), ['a.tf', 'empty/c.tf'], 'a removed directory')
  await mkdir(path.join(dir, 'new'))
  await writeFile(path.join(dir, 'new/b.tf'), 'b = 3\n')
  t.equal((await files(source))['new/b.tf'], 'b = 3\n', 'a directory made again where a watched one was removed')
  await writeFile(path.join(dir, 'new/b.tf'), 'b = 4\n')
  t.equal((await files(source))['new/b.tf'], 'b = 4\n', 'and an edit in it')
})

t.test('a commit, a reset or packed refs move the commit without a change in the folder', async (t) => {
  const repo = await tempDir(t, 'ies-templates-git-')
  const git = async (...args: string[]) => (await run('git', args, { cwd: repo, env: GIT_ENV })).stdout.trim()
  const dir = path.join(repo, 'templates')
  await mkdir(dir)
  await writeFile(path.join(dir, 'a.tf'), 'a = 1\n')
  await writeFile(path.join(repo, 'README'), 'outside\n')
  await git('init', '-q', '-b', 'main')
  await git('add', '-A')
  await git('commit', '-q', '-m', 'one')
  const c1 = await git('rev-parse', 'HEAD')
  const source = sourceOf(t, dir)
  t.equal((await source.load()).commit, c1)

  await writeFile(path.join(dir, 'a.tf'), 'a = 2\n')
  const dirty = (await source.load()).commit
  t.match(dirty, new RegExp(`^${c1}-dirty-[0-9a-f]{12}$`), 'an uncommitted edit')
  t.equal((await fsRequests(() => source.load())).requests, 0, 'watched: clean until something happens')

  await git('commit', '-q', '-am', 'two')
  const c2 = await git('rev-parse', 'HEAD')
  t.equal((await source.load()).commit, c2, 'committed: no file of the folder changed, the marker is gone')

  await git('reset', '-q', '--soft', 'HEAD~1')
  t.equal((await source.load()).commit, dirty, 'a soft reset (only the ref moves): the edit is uncommitted again')

  await git('pack-refs', '--all')
  await git('commit', '-q', '-m', 'two again')
  const c3 = await git('rev-parse', 'HEAD')
  t.equal((await source.load()).commit, c3, 'a commit after the refs were packed')

  await git('update-ref', 'refs/heads/main', c1)
  await git('pack-refs', '--all')
  t.equal((await source.load()).commit, dirty, 'a ref moved, then packed (the loose ref removed)')

  await git('checkout', '-q', '-b', 'other')
  await git('commit', '-q', '-am', 'on other')
  const c4 = await git('rev-parse', 'HEAD')
  t.equal((await source.load()).commit, c4, 'a commit on a new branch (HEAD switched)')

  await git('symbolic-ref', 'HEAD', 'refs/heads/main')
  t.equal((await source.load()).commit, dirty, 'HEAD alone pointed at main again: the files are uncommitted there')
  await git('update-ref', '--no-deref', 'HEAD', c4)
  t.equal((await source.load()).commit, c4, 'HEAD alone detached at a commit')

  await git('checkout', '-q', 'main')
  t.equal((await source.load()).commit, c1, 'back to main: its files are checked out')
})

t.test('a repository made between the folder and its repository, and a symbolic link switched to another tree', async (t) => {
  const base = await tempDir(t)
  const outer = path.join(base, 'outer')
  const inner = path.join(outer, 'inner')
  const dir = path.join(inner, 'templates')
  await mkdir(dir, { recursive: true })
  await writeFile(path.join(dir, 'a.tf'), 'a = 1\n')
  const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd, env: GIT_ENV })).stdout.trim()
  const commitAll = async (repo: string) => {
    await git(repo, 'init', '-q', '-b', 'main')
    await git(repo, 'add', '-A')
    await git(repo, 'commit', '-q', '-m', 'all')
    return git(repo, 'rev-parse', 'HEAD')
  }
  const outerCommit = await commitAll(outer)
  const source = sourceOf(t, dir)
  t.equal((await source.load()).commit, outerCommit, 'the outer repository')
  const innerCommit = await commitAll(inner)
  t.equal((await source.load()).commit, innerCommit, 'a repository made in between: the nearest one')

  for (const release of ['v1', 'v2']) {
    await mkdir(path.join(base, release))
    await writeFile(path.join(base, release, 'a.tf'), `release = "${release}"\n`)
  }
  const link = path.join(base, 'current')
  await symlink('v1', link)
  const linked = sourceOf(t, link)
  t.equal((await files(linked))['a.tf'], 'release = "v1"\n')
  await symlink('v2', path.join(base, 'next'))
  await rename(path.join(base, 'next'), link)
  t.equal((await files(linked))['a.tf'], 'release = "v2"\n', 'the link switched (renamed over): the other tree')
})

t.test('without watching (disabled, or a directory that is not there) every load checks', async (t) => {
  const base = await tempDir(t)
  const dir = path.join(base, 'later')
  const source = sourceOf(t, dir)
  await t.rejects(source.load(), /templates directory not found/, 'missing: the load fails as before')
  await mkdir(dir)
  await writeFile(path.join(dir, 'a.tf'), 'a = 1\n')
  t.same(await files(source), { 'a.tf': 'a = 1\n' }, 'made: the next load reads it')
  await rm(dir, { recursive: true })
  await t.rejects(source.load(), /templates directory not found/, 'removed: not found again')
  await mkdir(dir)
  await writeFile(path.join(dir, 'a.tf'), 'a = 2\n')
  t.same(await files(source), { 'a.tf': 'a = 2\n' }, 'made again')
  await writeFile(path.join(dir, 'a.tf'), 'a = 3\n')
  t.same(await files(source), { 'a.tf': 'a = 3\n' }, 'and watched again: an edit')

  source.close?.()
  t.ok((await fsRequests(() => source.load())).requests > 0, 'closed: every load checks')
  await writeFile(path.join(dir, 'a.tf'), 'a = 4\n')
  t.same(await files(source), { 'a.tf': 'a = 4\n' }, 'closed: changes still seen')
})

t.test('close() ends every watcher of a source', async (t) => {
  const opened = new Set<number>()
  let ended = 0
  const hook = createHook({
    init: (id, type) => {
      if (type === 'FSEVENTWRAP') opened.add(id)
    },
    destroy: (id) => {
      if (opened.has(id)) ended++
    },
  }).enable()
  t.teardown(() => hook.disable())
  const source = directorySource(BUNDLED_TEMPLATES_DIR)
  await source.load()
  await source.load()
  t.ok(opened.size > 10, `a watcher per directory (${opened.size})`)
  source.close?.()
  // A closed handle's destroy hook runs on a later turn.
  t.equal(
    await eventually(
      async () => ended,
      (n) => n === opened.size,
    ),
    opened.size,
    'every watcher closed',
  )
})

t.test('a folder that cannot be watched is reported once, and every load checks it', async (t) => {
  // A fault the machine can produce without harm to others (inotify's limits are per user, and no
  // network filesystem is mounted here): a path the operating system refuses to watch or read.
  const reasons: string[] = []
  const source = directorySource(path.join(os.tmpdir(), 'ies-\u0000-unwatchable'), { onUnwatched: (reason) => reasons.push(reason) })
  t.teardown(() => source.close?.())
  await t.rejects(source.load(), 'the load fails as it would without watching')
  await t.rejects(source.load())
  t.equal(reasons.length, 1, 'reported once')
  t.match(reasons[0], /^cannot watch /, 'with the reason')
})
