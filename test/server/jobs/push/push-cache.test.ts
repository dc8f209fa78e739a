// The repository a push works in is kept between pushes (server/src/jobs/push/repository-cache.ts):
// against a real git http-backend server behind a proxy that counts the bytes it answers, the
// second push into a repository with 3,000 customer files downloads a small part of what the first
// downloaded; pushes to one URL at once take turns and all arrive; a cache whose objects are gone
// starts again empty after the push that found it so; another deploy key gets a cache of its own.
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { pushFiles, type PushRequest } from '../../../../server/src/jobs/push/push.ts'
import { cacheDirOf } from '../../../../server/src/jobs/push/repository-cache.ts'
import { startGitProxy } from '../../../harness/git-proxy.ts'
import { startGitServer } from '../../../harness/git-server.ts'

const run = promisify(execFile)
const IDENTITY = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid']

t.test('the repository cache of pushes', async (t) => {
  const git = await startGitServer()
  t.teardown(() => git.stop())
  const proxy = await startGitProxy(git.baseUrl)
  t.teardown(() => proxy.stop())
  const urlOf = (repo: string) => `${proxy.baseUrl}/${repo}.git`
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'ies-push-cache-'))
  t.teardown(() => rm(cacheDir, { recursive: true, force: true }))
  const request = (repo: string, files: Record<string, string>): PushRequest => ({
    url: urlOf(repo),
    branch: 'main',
    auth: { username: 'x', password: 'y' },
    files: Object.entries(files).map(([p, content]) => ({ path: p, content: Buffer.from(content), mode: 0o644 })),
    message: () => 'IES push\n\nIES-Environment: env-1\n',
    author: { name: 'IES', email: 'ies@localhost' },
    strategy: 'merge',
    reviewBranch: 'ies/update-cache',
    dryRun: false,
    cacheDir,
  })
  const fetched = () => proxy.calls.filter((c) => c.kind === 'fetch').reduce((n, c) => n + c.responseBytes, 0)
  const cacheOf = (repo: string) => cacheDirOf(cacheDir, urlOf(repo), { username: 'x', password: 'y' })

  await t.test('the next push downloads only what is new', async (t) => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'ies-cache-'))
    t.teardown(() => rm(work, { recursive: true, force: true }))
    for (let i = 0; i < 3000; i++) await writeFile(path.join(work, `file-${i}.txt`), `customer file ${i}\n${'some text\n'.repeat(10)}`)
    await run('git', ['init', '-q', '-b', 'main'], { cwd: work })
    await run('git', [...IDENTITY, 'add', '-A'], { cwd: work })
    await run('git', [...IDENTITY, 'commit', '-q', '-m', 'ours'], { cwd: work })
    await run('git', ['clone', '-q', '--bare', work, path.join(git.reposDir, 'big.git')])
    await git.git('big', ['config', 'http.receivepack', 'true'])

    let before = fetched()
    t.equal((await pushFiles(request('big', { 'gen.tf': 'a = 1\n' }))).changed, true)
    const first = fetched() - before
    before = fetched()
    t.equal((await pushFiles(request('big', { 'gen.tf': 'a = 2\n' }))).changed, true)
    const second = fetched() - before
    t.ok(second * 10 < first, `the second push fetched ${second} bytes, the first ${first}`)
    t.equal(await git.git('big', ['show', 'main:gen.tf']), 'a = 2\n')
    t.equal((await git.git('big', ['ls-tree', '--name-only', 'main'])).split('\n').filter((l) => l.startsWith('file-')).length, 3000)
  })

  await t.test('pushes to one URL at once take turns', async (t) => {
    await git.createRepo('turns', { 'README.md': '# turns\n' })
    const outcomes = await Promise.all([1, 2, 3].map((i) => pushFiles(request('turns', { [`gen-${i}.tf`]: `a = ${i}\n` }))))
    t.same(
      outcomes.map((o) => o.changed),
      [true, true, true],
    )
    // In the order asked: each generation replaces the one before (the customer kept none of its files).
    t.same((await git.git('turns', ['ls-tree', '--name-only', 'main'])).split('\n').filter(Boolean), ['README.md', 'gen-3.tf'])
    t.equal(await git.git('turns', ['rev-list', '--count', 'main']), '4\n', 'three pushes, one after the other')
  })

  await t.test('another deploy key has a cache of its own', async (t) => {
    await git.createRepo('keys', { 'README.md': '# keys\n' })
    await pushFiles(request('keys', { 'gen.tf': 'a = 1\n' }))
    await pushFiles({ ...request('keys', { 'gen.tf': 'a = 2\n' }), auth: { username: 'x', password: 'another key' } })
    const dirs = [cacheOf('keys'), cacheDirOf(cacheDir, urlOf('keys'), { username: 'x', password: 'another key' })]
    t.not(dirs[0], dirs[1])
    for (const dir of dirs) await t.resolves(stat(path.join(dir, 'HEAD')), `${dir} holds a repository`)
  })

  await t.test('a damaged cache starts again empty', async (t) => {
    await git.createRepo('damaged', { 'README.md': '# damaged\n' })
    await pushFiles(request('damaged', { 'gen.tf': 'a = 1\n' }))
    const packs = path.join(cacheOf('damaged'), 'objects', 'pack')
    for (const f of await readdir(packs)) await writeFile(path.join(packs, f), 'damaged')
    await pushFiles(request('damaged', { 'gen.tf': 'a = 2\n' })).catch(() => undefined)
    const outcome = await pushFiles(request('damaged', { 'gen.tf': 'a = 3\n' }))
    t.equal(outcome.changed, true)
    t.equal(await git.git('damaged', ['show', 'main:gen.tf']), 'a = 3\n')
  })
})
