// A push keeps every entry and every byte of the customer's branch, end to end: a real git
// http-backend server holds the templates (TEMPLATES_REPO, so a template upgrade is a commit pushed
// there) and the customer's repositories, and the git CLI plays the customer. Each case checks the
// pushed tree with `git fsck --strict`, the exact modes and bytes, and that the dry run before it
// showed exactly what the push then wrote (compared with `git diff` of the two heads).
import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../../harness/app.ts'
import { startGitServer } from '../../../harness/git-server.ts'
import { environmentBody, waitForJob } from '../../../harness/jobs.ts'

const run = promisify(execFile)
const DEPLOY_KEY = 'iest_ZW50cmllcy1kZXBsb3kta2V5'
const BASIC = `Authorization: Basic ${Buffer.from(`x-access-token:${DEPLOY_KEY}`).toString('base64')}`
const CUSTOMER = ['-c', 'user.name=Customer', '-c', 'user.email=customer@example.invalid', '-c', `http.extraHeader=${BASIC}`]
const GENERATED = 'refs/ies/generated/main'
/** A submodule commit no repository here holds. */
const FOREIGN_COMMIT = '0123456789abcdef0123456789abcdef01234567'

t.test('a push keeps every entry and every byte', async (t) => {
  const git = await startGitServer({ username: 'x-access-token', password: DEPLOY_KEY })
  t.teardown(() => git.stop())
  await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
  const { url, auth } = await startTestApp(t, { PUSH_ALLOWED_HOSTS: '127.0.0.1', TEMPLATES_REPO: git.url('templates', true) })
  const headers = { ...auth('dev'), 'content-type': 'application/json' }
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const environment = async (repo: string) => {
    const body = {
      ...environmentBody({ name: `${repo}-env` }),
      gitRepository: { url: git.url(repo), branch: 'main', deployKey: DEPLOY_KEY },
    }
    const res = await api('POST', '/environments', body)
    if (res.status !== 201) throw new Error(`environment ${repo}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data.id as string
  }
  const push = async (envId: string, body: Record<string, unknown> = {}) => {
    const res = await api('POST', `/environments/${envId}/push`, body)
    if (res.status !== 202) throw new Error(`push: ${res.status} ${JSON.stringify(res.body)}`)
    return waitForJob(url, headers, res.body.data.id)
  }

  /** A clone worked on with the git CLI; `commit` commits everything and pushes it. */
  const clone = async (repo: string, branch = 'main') => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `ies-entries-${repo}-`))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const gitIn = async (...args: string[]) => (await run('git', [...CUSTOMER, ...args], { cwd: dir })).stdout
    await gitIn('clone', '-q', '--branch', branch, git.url(repo), '.')
    const at = (p: string) => path.join(dir, ...p.split('/'))
    return {
      git: gitIn,
      at,
      read: (p: string) => readFile(at(p)),
      write: async (p: string, content: string | Buffer) => {
        await mkdir(path.dirname(at(p)), { recursive: true })
        await writeFile(at(p), content)
      },
      commit: async (message: string) => {
        await gitIn('add', '-A')
        await gitIn('commit', '-q', '-m', message)
        await gitIn('push', '-q', 'origin', `HEAD:${branch}`)
      },
    }
  }
  const upgradeTemplates = async (message: string, files: Record<string, string | Buffer>) => {
    const templates = await clone('templates')
    for (const [p, content] of Object.entries(files)) await templates.write(p, content)
    await templates.commit(message)
  }

  /** Bytes from a bare repository: a blob, or a diff between commits. */
  const bytes = async (repo: string, args: string[]) =>
    (await run('git', args, { cwd: path.join(git.reposDir, `${repo}.git`), encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })).stdout
  const show = (repo: string, rev: string, file: string) => bytes(repo, ['show', `${rev}:${file}`])
  const rev = async (repo: string, ref: string) => (await git.git(repo, ['rev-parse', ref])).trim()
  /** The tree of a commit as `path -> "mode oid"`. */
  const treeOf = async (repo: string, ref: string) => {
    const out = await git.git(repo, ['ls-tree', '-r', '--full-tree', ref])
    return Object.fromEntries(
      out
        .trim()
        .split('\n')
        .map((line) => {
          const [meta, file] = line.split('\t')
          const [mode, , oid] = meta.split(' ')
          return [file, `${mode} ${oid}`]
        }),
    )
  }
  const fsckStrict = (t: Test, repo: string) => t.resolves(git.git(repo, ['fsck', '--strict', '--no-dangling']), 'git fsck --strict passes')

  /** The lines a diff changes (and its mode, binary and no-newline lines), as bytes: comparable across diff tools. */
  const changedLines = (patch: Buffer) =>
    patch
      .toString('latin1')
      .split('\n')
      .filter((l) => /^([-+\\]|(old|new|new file|deleted file) mode |Binary files )/.test(l) && !/^(---|\+\+\+) /.test(l))
      // The generation record's time is the one thing a later generation of the same input changes.
      .filter((l) => !l.includes('"generatedAt": '))
      .sort()
  /**
   * The dry run showed exactly what the push wrote: the same files with the same change, and each
   * diff changes the same lines, byte for byte, as `git diff` of the branch before and after.
   */
  const previewWasExact = async (t: Test, repo: string, preview: any, before: string, after: string) => {
    const status: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D' }
    const written = (await git.git(repo, ['diff', '--name-status', '--no-renames', before, after])).trim()
    t.same(
      preview.result.changes.map((c: any) => `${status[c.change] ?? c.change}\t${c.path}`),
      written ? written.split('\n') : [],
      'the dry run listed exactly the files the push changed',
    )
    for (const change of preview.result.changes) {
      const shown = Buffer.from(change.diff, /Latin-1/.test(change.diff.split('\n', 3).join('\n')) ? 'latin1' : 'utf8')
      const actual = await bytes(repo, ['diff', '--no-renames', before, after, '--', change.path])
      t.same(changedLines(shown), changedLines(actual), `the dry run's diff of ${change.path} is what the push wrote`)
    }
  }

  await t.test('links, a submodule and execute bits survive every push; nothing to change makes no commit', async (t) => {
    await git.createRepo('module', { 'lib.tf': 'module "x" {}\n' })
    await git.createRepo('entries', { 'README.md': '# entries\n' })
    const env = await environment('entries')
    t.equal((await push(env)).status, 'succeeded')

    const customer = await clone('entries')
    await symlink('../README.md', customer.at('terraform/OVERVIEW.md'))
    await customer.git('-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', git.url('module'), 'vendor/mod')
    await chmod(customer.at('terraform/terraform.tfvars'), 0o755)
    // A file name in Latin-1 (the byte E9 alone is no UTF-8).
    await mkdir(customer.at('notes'))
    await writeFile(
      Buffer.concat([Buffer.from(customer.at('notes/r')), Buffer.from([0xe9]), Buffer.from('sum\u00e9.txt')]),
      'r\u00e9sum\u00e9\n',
    )
    await customer.commit('a link, a submodule, an executable tfvars')
    const customerHead = await rev('entries', 'main')
    const customerTree = await treeOf('entries', 'main')
    t.match(customerTree, {
      'terraform/OVERVIEW.md': /^120000 /,
      'vendor/mod': /^160000 /,
      '.gitmodules': /^100644 /,
      'terraform/terraform.tfvars': /^100755 /,
    })

    const idle = await push(env, { dryRun: true })
    t.same(idle.result.changes, [], 'the dry run of an unchanged environment shows no change')
    const unchanged = await push(env)
    t.equal(unchanged.status, 'succeeded', JSON.stringify(unchanged.error))
    t.match(unchanged.result, { changed: false, commit: customerHead }, 'nothing to change: no commit')
    t.equal(await rev('entries', 'main'), customerHead, 'the branch did not move')

    t.equal((await api('PUT', `/environments/${env}`, { domain: 'entries2.example.com' })).status, 200)
    const preview = await push(env, { dryRun: true })
    const pushed = await push(env)
    t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
    t.match(pushed.result, { changed: true })
    const tree = await treeOf('entries', 'main')
    const latin1Name = Object.keys(customerTree).find((file) => file.startsWith('"notes/r\\351sum'))!
    t.ok(latin1Name, 'the Latin-1 name is in the tree')
    for (const kept of ['terraform/OVERVIEW.md', 'vendor/mod', '.gitmodules', 'README.md', latin1Name]) {
      t.equal(tree[kept], customerTree[kept], `${kept}: the same mode and object`)
    }
    t.match(tree['terraform/terraform.tfvars'], /^100755 /, 'the execute bit is kept on a file the push changed')
    t.match((await show('entries', 'main', 'terraform/terraform.tfvars')).toString(), 'domain = "entries2.example.com"')
    await fsckStrict(t, 'entries')
    await previewWasExact(t, 'entries', preview, customerHead, pushed.result.commit)
    const previewed = preview.result.changes.map((c: any) => c.path)
    t.ok(previewed.includes('terraform/terraform.tfvars'), 'the dry run showed the configuration change')
    t.notOk(
      previewed.some((p: string) => /OVERVIEW|vendor|gitmodules|notes/.test(p)),
      'and no change of the link, the submodule or the Latin-1 name',
    )

    const again = await push(env)
    t.match(again.result, { changed: false, commit: pushed.result.commit }, 'and again nothing to change: no commit')
  })

  await t.test('a submodule whose commit the repository does not hold is kept, with the link and .gitmodules', async (t) => {
    await git.createRepo('foreign', { 'README.md': '# foreign\n' })
    const env = await environment('foreign')
    t.equal((await push(env)).status, 'succeeded')

    // As a customer's repository really is: the superproject never holds its submodules' commits,
    // and the submodule's URL is another host's (unreachable from here).
    // Staged by name and committed without `git add -A`, which would stage the submodule's deletion:
    // its folder is not in the working tree.
    const customer = await clone('foreign')
    await customer.write('.gitmodules', '[submodule "vendor/net"]\n\tpath = vendor/net\n\turl = https://example.invalid/net.git\n')
    await symlink('../README.md', customer.at('terraform/OVERVIEW.md'))
    await customer.git('add', '.gitmodules', 'terraform/OVERVIEW.md')
    await customer.git('update-index', '--add', '--cacheinfo', `160000,${FOREIGN_COMMIT},vendor/net`)
    await customer.git('commit', '-q', '-m', 'a submodule of another host, and a link')
    await customer.git('push', '-q', 'origin', 'HEAD:main')
    const customerHead = await rev('foreign', 'main')
    const customerTree = await treeOf('foreign', 'main')
    t.equal(customerTree['vendor/net'], `160000 ${FOREIGN_COMMIT}`, 'the branch holds the gitlink')

    t.equal((await api('PUT', `/environments/${env}`, { domain: 'foreign2.example.com' })).status, 200)
    const preview = await push(env, { dryRun: true })
    t.equal(preview.status, 'succeeded', JSON.stringify(preview.error))
    const pushed = await push(env)
    t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
    t.match(pushed.result, { changed: true })
    const tree = await treeOf('foreign', 'main')
    for (const kept of ['vendor/net', '.gitmodules', 'terraform/OVERVIEW.md', 'README.md']) {
      t.equal(tree[kept], customerTree[kept], `${kept}: the same mode and object`)
    }
    t.match((await show('foreign', 'main', 'terraform/terraform.tfvars')).toString(), 'domain = "foreign2.example.com"')
    await previewWasExact(t, 'foreign', preview, customerHead, pushed.result.commit)
    await fsckStrict(t, 'foreign')
  })

  await t.test('a repository whose history the server holds only in part (a shallow repository) is pushed to and kept', async (t) => {
    // The customer's history: three commits, of which the server holds only the last (cloned with
    // --depth 1, as a repository imported from a shallow clone is): no parent to walk to.
    await git.createRepo('deep', { 'README.md': '# deep\n' })
    const history = await clone('deep')
    for (const n of [1, 2]) {
      await history.write('notes.md', `# notes ${n}\n`)
      await history.commit(`notes ${n}`)
    }
    await run('git', ['clone', '-q', '--bare', '--depth', '1', `file://${path.join(git.reposDir, 'deep.git')}`, 'shallow.git'], {
      cwd: git.reposDir,
    })
    await git.git('shallow', ['config', 'http.receivepack', 'true'])
    t.equal((await git.git('shallow', ['rev-list', '--count', 'main'])).trim(), '1', 'the server holds one commit of the history')
    const env = await environment('shallow')
    const first = await push(env)
    t.equal(first.status, 'succeeded', JSON.stringify(first.error))

    const customer = await clone('shallow')
    await customer.write('terraform/ours.tf', '# ours\n')
    await customer.commit('a file of our own')
    const customerTree = await treeOf('shallow', 'main')
    t.equal((await api('PUT', `/environments/${env}`, { domain: 'shallow2.example.com' })).status, 200)
    const pushed = await push(env)
    t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
    t.match(pushed.result, { changed: true })
    const tree = await treeOf('shallow', 'main')
    for (const kept of ['README.md', 'notes.md', 'terraform/ours.tf']) t.equal(tree[kept], customerTree[kept], `${kept} is kept`)
    t.match((await show('shallow', 'main', 'terraform/terraform.tfvars')).toString(), 'domain = "shallow2.example.com"')
    await fsckStrict(t, 'shallow')
  })

  await t.test('Latin-1, CRLF and a missing final newline are merged byte for byte, as git merge-file merges them', async (t) => {
    await upgradeTemplates('templates: a CRLF file', { 'terraform/windows.tf': 'a = 1\r\nb = 2\r\nc = 3\r\nd = 4\r\ne = 5\r\n' })
    await git.createRepo('bytes', {})
    const env = await environment('bytes')
    t.equal((await push(env)).status, 'succeeded')
    t.same(await show('bytes', 'main', 'terraform/windows.tf'), Buffer.from('a = 1\r\nb = 2\r\nc = 3\r\nd = 4\r\ne = 5\r\n'))

    const customer = await clone('bytes')
    const latin1 = Buffer.from(
      '# Zone: r\u00e9gion Fran\u00e7aise, g\u00e9r\u00e9e par l\u2019\u00e9quipe\n'.replace('\u2019', "'"),
      'latin1',
    )
    await customer.write('terraform/terraform.tfvars', Buffer.concat([latin1, await customer.read('terraform/terraform.tfvars')]))
    await customer.write('terraform/windows.tf', '# ours\r\na = 1\r\nb = 2\r\nc = 3\r\nd = 4\r\ne = 5\r\n')
    const versions = await customer.read('terraform/versions.tf')
    await customer.write('terraform/versions.tf', versions.subarray(0, versions.length - 1))
    await customer.commit('Latin-1 comment, a CRLF line, no final newline')
    const before = await rev('bytes', 'main')
    const base = await rev('bytes', GENERATED)

    // Changes of their own in each of those files: a configuration change and a template upgrade.
    t.equal((await api('PUT', `/environments/${env}`, { domain: 'bytes2.example.com' })).status, 200)
    await upgradeTemplates('templates: CRLF and versions changes', {
      'terraform/windows.tf': 'a = 1\r\nb = 2\r\nc = 3\r\nd = 4\r\ne = 50\r\n',
      'terraform/versions.tf': (await readFile(path.join(BUNDLED_TEMPLATES_DIR, 'terraform/versions.tf'), 'utf8')).replace(
        'terraform {\n',
        '# pinned by the templates\nterraform {\n',
      ),
    })
    const preview = await push(env, { dryRun: true })
    t.equal(preview.status, 'succeeded', JSON.stringify(preview.error))
    const pushed = await push(env)
    t.equal(pushed.status, 'succeeded', JSON.stringify(pushed.error))
    const theirs = await rev('bytes', GENERATED)
    t.not(theirs, base, 'the generated ref moved to the new generation')

    const tfvars = await show('bytes', 'main', 'terraform/terraform.tfvars')
    t.same(tfvars.subarray(0, latin1.length), latin1, 'the Latin-1 comment is byte for byte as the customer wrote it')
    t.match(tfvars.toString('latin1'), 'domain = "bytes2.example.com"', 'and the configuration change arrived')
    t.equal(tfvars.indexOf(Buffer.from([0xef, 0xbf, 0xbd])), -1, 'no U+FFFD anywhere')
    t.same(await show('bytes', 'main', 'terraform/windows.tf'), Buffer.from('# ours\r\na = 1\r\nb = 2\r\nc = 3\r\nd = 4\r\ne = 50\r\n'))
    const merged = await show('bytes', 'main', 'terraform/versions.tf')
    t.ok(merged.toString().startsWith('# pinned by the templates\n') && !merged.toString().endsWith('\n'), 'both changes, no final newline')

    // Each file is exactly what git merge-file makes of the same three versions.
    const work = await mkdtemp(path.join(os.tmpdir(), 'ies-entries-merge-file-'))
    t.teardown(() => rm(work, { recursive: true, force: true }))
    for (const file of ['terraform/terraform.tfvars', 'terraform/windows.tf', 'terraform/versions.tf']) {
      const sides = [path.join(work, 'ours'), path.join(work, 'base'), path.join(work, 'theirs')]
      await writeFile(sides[0], await show('bytes', before, file))
      await writeFile(sides[1], await show('bytes', base, file))
      await writeFile(sides[2], await show('bytes', theirs, file))
      await run('git', ['merge-file', ...sides])
      t.same(await show('bytes', 'main', file), await readFile(sides[0]), `${file}: byte-identical to git merge-file`)
    }
    await fsckStrict(t, 'bytes')
    await previewWasExact(t, 'bytes', preview, before, pushed.result.commit)
    const shown = preview.result.changes.find((c: any) => c.path === 'terraform/terraform.tfvars')
    t.match(
      shown.diff,
      '--- a/terraform/terraform.tfvars\tnot UTF-8: each byte shown as one Latin-1 character\n',
      'the preview says how it shows the bytes',
    )
    t.notMatch(shown.diff, '\ufffd', 'and shows no U+FFFD')
  })

  await t.test('a file against a folder, either way round, is a PUSH_CONFLICT naming the path; no tree IES writes is broken', async (t) => {
    await git.createRepo('folders', {})
    const env = await environment('folders')
    t.equal((await push(env)).status, 'succeeded')
    const customer = await clone('folders')
    await customer.write('terraform/extras', '# our extras, a file\n')
    await customer.write('terraform/more/ours.md', '# our folder\n')
    await customer.commit('a file and a folder of our own')
    const before = await rev('folders', 'main')
    const refsBefore = await git.git('folders', ['for-each-ref'])
    await upgradeTemplates('templates: a folder and a file', {
      'terraform/extras/NOTES.md': '# notes from the templates\n',
      'terraform/more': '# more, a file from the templates\n',
    })

    const failed = await push(env)
    t.equal(failed.error?.code, 'PUSH_CONFLICT')
    t.match(failed.error?.message, /terraform\/extras, terraform\/more/)
    t.same(failed.error?.details?.conflicts, [
      { file: 'terraform/extras', kind: 'file-folder', hunks: [] },
      { file: 'terraform/more', kind: 'file-folder', hunks: [] },
    ])
    t.equal(await git.git('folders', ['for-each-ref']), refsBefore, 'the branch and the generated ref are untouched')

    const preview = await push(env, { dryRun: true })
    t.equal(preview.status, 'succeeded', JSON.stringify(preview.error))
    t.same(
      preview.result.changes.filter((c: any) => c.change === 'conflict').map((c: any) => c.path),
      ['terraform/extras', 'terraform/more'],
    )
    t.match(preview.result.changes.find((c: any) => c.path === 'terraform/extras').diff, 'is a file on one side and a folder on the other')

    const review = await push(env, { strategy: 'branch' })
    t.equal(review.status, 'succeeded', JSON.stringify(review.error))
    const proposal = await treeOf('folders', review.result.branch)
    const branch = await treeOf('folders', before)
    t.equal(proposal['terraform/extras'], branch['terraform/extras'], "the review keeps the customer's file")
    t.equal(proposal['terraform/more/ours.md'], branch['terraform/more/ours.md'], "and the customer's folder")
    t.notOk(proposal['terraform/extras/NOTES.md'], 'without the file that cannot sit beside it')
    await fsckStrict(t, 'folders')
    t.equal(await rev('folders', 'main'), before)

    // The customer makes room: the templates' file and folder arrive.
    await customer.git('rm', '-q', 'terraform/extras')
    await customer.git('mv', 'terraform/more', 'terraform/ours')
    await customer.commit('make room for the templates')
    const resolved = await push(env)
    t.equal(resolved.status, 'succeeded', JSON.stringify(resolved.error))
    const tree = await treeOf('folders', 'main')
    t.ok(tree['terraform/extras/NOTES.md'] && tree['terraform/more'] && tree['terraform/ours/ours.md'])
    await fsckStrict(t, 'folders')
  })
})
