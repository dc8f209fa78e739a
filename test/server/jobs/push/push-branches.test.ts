// Which branch a push goes to and what it starts from, against a real git http-backend server with
// the git CLI as the customer (server/src/jobs/push/push.ts called directly): no branch given is
// the remote's default branch (its HEAD, `master` here), `main` only in an empty repository; a
// branch deleted after its pull request was merged starts again from the default branch; a refused
// ref is named in GIT_PUSH_REJECTED.
import { execFile } from 'node:child_process'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { pushFiles, type PushRequest } from '../../../../server/src/jobs/push/push.ts'
import { startGitServer } from '../../../harness/git-server.ts'

const run = promisify(execFile)
const KEY = 'iest_YnJhbmNoZXMtdGVzdC1rZXk'
const BASIC = `Authorization: Basic ${Buffer.from(`x-access-token:${KEY}`).toString('base64')}`
const IDENTITY = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid', '-c', `http.extraHeader=${BASIC}`]

t.test('push branches against a real git server', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: KEY })
  t.teardown(() => git.stop())

  const request = (repo: string, files: Record<string, string>, extra: Partial<PushRequest> = {}): PushRequest => ({
    url: git.url(repo),
    auth: { username: 'x-access-token', password: KEY },
    files: Object.entries(files).map(([p, content]) => ({ path: p, content: Buffer.from(content), mode: 0o644 })),
    message: () => 'IES push\n\nIES-Environment: env-1\n',
    author: { name: 'IES', email: 'ies@localhost' },
    strategy: 'merge',
    reviewBranch: 'ies/update-branches',
    dryRun: false,
    ...extra,
  })
  /** A clone of the repository (its default branch) the test works in with the git CLI. */
  const clone = async (repo: string) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-branches-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const gitIn = async (...args: string[]) => (await run('git', [...IDENTITY, ...args], { cwd: dir })).stdout.trim()
    await gitIn('clone', '-q', git.url(repo), '.')
    return { dir, git: gitIn }
  }
  /** A repository whose default branch is `master`, with a customer history of three commits. */
  const masterRepo = async (name: string) => {
    await git.createRepo(name, { 'README.md': '# shop\n' })
    await git.git(name, ['branch', '-m', 'main', 'master'])
    await git.git(name, ['symbolic-ref', 'HEAD', 'refs/heads/master'])
    const customer = await clone(name)
    for (const n of [1, 2]) {
      await writeFile(path.join(customer.dir, `notes-${n}.md`), `note ${n}\n`)
      await customer.git('add', '-A')
      await customer.git('commit', '-q', '-m', `note ${n}`)
    }
    await customer.git('push', '-q', 'origin', 'master')
    return (await git.git(name, ['rev-parse', 'master'])).trim()
  }
  const branches = async (repo: string) =>
    (await git.git(repo, ['for-each-ref', '--format=%(refname)', 'refs/heads'])).split('\n').filter(Boolean)

  await t.test("no branch given: the remote's default branch, on top of its history", async (t) => {
    const before = await masterRepo('master-default')
    const outcome = await pushFiles(request('master-default', { 'gen.tf': 'a = 1\n' }))
    t.match(outcome, { branch: 'master', changed: true })
    t.same(await branches('master-default'), ['refs/heads/master'], 'no orphan main is made')
    t.equal((await git.git('master-default', ['rev-parse', 'master^'])).trim(), before, "the push's parent is the customer's last commit")
    t.equal(await git.git('master-default', ['show', 'master:notes-2.md']), 'note 2\n')
    t.equal(await git.git('master-default', ['show', 'master:gen.tf']), 'a = 1\n')
    const customer = await clone('master-default')
    t.equal(await customer.git('rev-parse', '--abbrev-ref', 'HEAD'), 'master', 'a clone checks out the pushed branch')
  })

  await t.test('no branch given, an empty repository: main', async (t) => {
    await run('git', ['init', '-q', '--bare', path.join(git.reposDir, 'empty.git')])
    await git.git('empty', ['config', 'http.receivepack', 'true'])
    const outcome = await pushFiles(request('empty', { 'gen.tf': 'a = 1\n' }))
    t.match(outcome, { branch: 'main', changed: true })
    t.same(await branches('empty'), ['refs/heads/main'])
    t.equal(await git.git('empty', ['show', 'main:gen.tf']), 'a = 1\n')
  })

  await t.test('a branch deleted after its pull request was merged starts from the default branch', async (t) => {
    await masterRepo('deleted')
    const first = await pushFiles(request('deleted', { 'gen.tf': 'a = 1\nb = 1\n' }, { branch: 'ies/infra' }))
    t.match(first, { branch: 'ies/infra', changed: true })
    t.equal(
      (await git.git('deleted', ['rev-parse', 'ies/infra^'])).trim(),
      (await git.git('deleted', ['rev-parse', 'master'])).trim(),
      'a new branch starts at the default branch too',
    )
    // The customer merges the pull request (a merge commit) and the host deletes the branch.
    const customer = await clone('deleted')
    await customer.git('fetch', '-q', 'origin', 'ies/infra')
    await customer.git('merge', '-q', '--no-ff', '-m', 'Merge pull request #1 from ies/infra', 'FETCH_HEAD')
    await writeFile(path.join(customer.dir, 'gen.tf'), 'a = 1\nb = 1\n# ours\n')
    await customer.git('commit', '-q', '-am', 'our comment')
    await customer.git('push', '-q', 'origin', 'master', ':ies/infra')
    const merged = (await git.git('deleted', ['rev-parse', 'master'])).trim()

    const next = await pushFiles(request('deleted', { 'gen.tf': 'a = 2\nb = 1\n' }, { branch: 'ies/infra' }))
    t.match(next, { branch: 'ies/infra', changed: true, conflicts: [] })
    t.equal((await git.git('deleted', ['rev-parse', 'ies/infra^'])).trim(), merged, 'opened again on top of the default branch')
    t.equal(
      await git.git('deleted', ['diff', '--stat', '--name-only', 'master', 'ies/infra']),
      'gen.tf\n',
      'the pull request shows only the new change',
    )
    t.equal(await git.git('deleted', ['show', 'ies/infra:gen.tf']), 'a = 2\nb = 1\n# ours\n', "the customer's line is kept")
  })

  await t.test('GIT_PUSH_REJECTED names the ref the host refused', async (t) => {
    await git.createRepo('protected', { 'README.md': '# shop\n' })
    const hook = path.join(git.reposDir, 'protected.git', 'hooks', 'pre-receive')
    await writeFile(
      hook,
      '#!/bin/sh\nwhile read old new ref; do [ "$ref" = refs/heads/live ] && { echo "live is protected" >&2; exit 1; }; done\nexit 0\n',
    )
    await chmod(hook, 0o755)
    await t.rejects(pushFiles(request('protected', { 'gen.tf': 'a = 1\n' }, { branch: 'live' })), {
      code: 'GIT_PUSH_REJECTED',
      message: /refused the push to refs\/heads\/live/,
    })
  })
})
