// The templates commit of a templates directory inside a larger git repository (the bundled
// templates/ folder in the IES repository): the last commit that changed the directory, so commits
// elsewhere keep it, and a content marker while the directory has uncommitted changes. A directory
// that is the repository itself gives HEAD; one outside any repository (or untracked) a content hash.
import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { readTree } from '@ies/processor-lib'
import { templatesCommit, workingTreeId } from '@ies/processor-lib/commit'
import { GIT_ENV } from '../harness/git-env.ts'

const run = promisify(execFile)

t.test('a templates directory inside a larger repository', async (t) => {
  const repo = await mkdtemp(join(tmpdir(), 'ies-commit-'))
  t.teardown(() => rm(repo, { recursive: true, force: true }))
  const git = async (...args: string[]) => (await run('git', args, { cwd: repo, env: GIT_ENV })).stdout.trim()
  const commit = async (message: string) => {
    await git('add', '-A')
    await git('commit', '-q', '-m', message)
    return git('rev-parse', 'HEAD')
  }
  const templates = join(repo, 'templates')
  await mkdir(join(templates, 'terraform'), { recursive: true })
  await mkdir(join(repo, 'server'))
  await writeFile(join(templates, 'terraform/main.tf'), 'x = 1\n')
  await writeFile(join(templates, 'README.md'), '# templates\n')
  await writeFile(join(repo, 'server/app.ts'), 'export {}\n')
  await git('init', '-q', '-b', 'main')
  const c1 = await commit('templates and server')

  t.equal(await templatesCommit(templates), c1, 'the commit that added the directory')
  t.equal(await templatesCommit(repo), c1, 'the repository itself: HEAD')
  t.equal(
    workingTreeId((await readTree(templates)).inputs),
    await git('rev-parse', 'HEAD:templates'),
    "the working tree id is git's tree id",
  )

  await writeFile(join(repo, 'server/app.ts'), 'export const x = 1\n')
  const c2 = await commit('server only')
  t.equal(await templatesCommit(templates), c1, 'a commit elsewhere keeps the templates commit (a saved draft sees the same catalog)')
  t.equal(await templatesCommit(repo), c2)

  await writeFile(join(templates, 'terraform/main.tf'), 'x = 2\n')
  const dirty = await templatesCommit(templates)
  t.match(dirty, new RegExp(`^${c1}-dirty-[0-9a-f]{12}$`), 'an uncommitted edit: the commit with a content marker')
  t.equal(await templatesCommit(templates), dirty, 'stable while the content is')
  await writeFile(join(templates, 'terraform/main.tf'), 'x = 3\n')
  const dirty2 = await templatesCommit(templates)
  t.not(dirty2, dirty, 'another edit: another marker')
  await writeFile(join(templates, 'terraform/main.tf'), 'x = 1\n')
  t.equal(await templatesCommit(templates), c1, 'the edit undone: the commit again')

  await writeFile(join(templates, 'terraform/new.tf'), 'y = 1\n')
  t.match(await templatesCommit(templates), /-dirty-/, 'an untracked file is a change')
  await unlink(join(templates, 'terraform/new.tf'))
  await unlink(join(templates, 'README.md'))
  t.match(await templatesCommit(templates), /-dirty-/, 'a removed file is a change')
  await writeFile(join(templates, 'README.md'), '# templates\n')
  await chmod(join(templates, 'README.md'), 0o755)
  t.match(await templatesCommit(templates), /-dirty-/, 'a changed executable bit is a change')
  await chmod(join(templates, 'README.md'), 0o644)
  t.equal(await templatesCommit(templates), c1)

  await writeFile(join(templates, 'terraform/main.tf'), 'x = 4\n')
  const c3 = await commit('templates: x = 4')
  t.equal(await templatesCommit(templates), c3, 'committed: the new commit, no marker')
  await writeFile(join(repo, 'server/app.ts'), 'export const x = 2\n')
  await commit('server again')
  await git('commit', '-q', '--allow-empty', '-m', 'empty')
  t.equal(await templatesCommit(templates), c3, 'still the last commit that changed the directory')

  const untracked = join(repo, 'untracked-templates')
  await mkdir(untracked)
  await writeFile(join(untracked, 'a.tf'), 'a = 1\n')
  t.match(await templatesCommit(untracked), /^sha256-[0-9a-f]{64}$/, 'a directory the repository does not track: the content hash')
})

t.test('a shallow clone whose history ends before the last change', async (t) => {
  const origin = await mkdtemp(join(tmpdir(), 'ies-commit-origin-'))
  const clone = await mkdtemp(join(tmpdir(), 'ies-commit-clone-'))
  t.teardown(() => Promise.all([rm(origin, { recursive: true, force: true }), rm(clone, { recursive: true, force: true })]))
  const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd, env: GIT_ENV })).stdout.trim()
  await mkdir(join(origin, 'templates'))
  await writeFile(join(origin, 'templates/a.tf'), 'a = 1\n')
  await git(origin, 'init', '-q', '-b', 'main')
  await git(origin, 'add', '-A')
  await git(origin, 'commit', '-q', '-m', 'one')
  await writeFile(join(origin, 'other.txt'), 'x\n')
  await git(origin, 'add', '-A')
  await git(origin, 'commit', '-q', '-m', 'two')
  await git(clone, 'clone', '-q', '--depth', '1', `file://${origin}`, 'repo')
  const head = await git(join(clone, 'repo'), 'rev-parse', 'HEAD')
  t.equal(await templatesCommit(join(clone, 'repo/templates')), head, 'the oldest commit there is')
})
