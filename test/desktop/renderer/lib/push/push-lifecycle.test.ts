// The lifecycle UI's logic against the lifecycle API contract: commit and branch links on known Git
// hosts (text elsewhere), the change tree and diff lines of a preview, what a finished dry-run,
// push or conflicting job means, and "behind" and conflicts in plain words.
import t from 'tap'
import { gitHostLinks, repositoryWebUrl } from '../../../../../desktop/src/renderer/lib/push/git-host-links.ts'
import {
  changeCounts,
  changeTree,
  describeCounts,
  diffLines,
  type FileChange,
} from '../../../../../desktop/src/renderer/lib/push/change-tree.ts'
import {
  behindReasons,
  describeConflict,
  describeHunk,
  isBehind,
  pushOutcome,
} from '../../../../../desktop/src/renderer/lib/push/lifecycle.ts'
import type { Job } from '../../../../../desktop/src/renderer/lib/api/types.ts'

const SHA = '0123456789abcdef0123456789abcdef01234567'

t.test('links on github.com, gitlab.com and bitbucket.org; text elsewhere', async (t) => {
  t.same(gitHostLinks('https://github.com/acme/infra.git', { commit: SHA, branch: 'main' }), {
    commit: `https://github.com/acme/infra/commit/${SHA}`,
    branch: 'https://github.com/acme/infra/tree/main',
  })
  t.same(gitHostLinks('https://gitlab.com/acme/platform/infra.git', { commit: SHA, branch: 'ies/update-1a2b' }), {
    commit: `https://gitlab.com/acme/platform/infra/-/commit/${SHA}`,
    branch: 'https://gitlab.com/acme/platform/infra/-/tree/ies/update-1a2b',
  })
  t.same(gitHostLinks('https://x-token-auth:secret@bitbucket.org/acme/infra', { commit: SHA, branch: 'feature/a b' }), {
    commit: `https://bitbucket.org/acme/infra/commits/${SHA}`,
    branch: 'https://bitbucket.org/acme/infra/src/feature/a%20b',
  })
  t.notMatch(
    JSON.stringify(gitHostLinks('https://user:secret@github.com/acme/infra.git', { commit: SHA })),
    'secret',
    'credentials never copied',
  )
  t.same(gitHostLinks('https://git.example.com/acme/infra.git', { commit: SHA, branch: 'main' }), {}, 'unknown host: no link')
  t.same(gitHostLinks('http://github.com/acme/infra.git', { commit: SHA }), {}, 'not https: no link')
  t.same(gitHostLinks('https://github.com:8443/acme/infra.git', { commit: SHA }), {}, 'another port is another server')
  t.same(gitHostLinks('https://github.com/acme', { commit: SHA }), {}, 'not a repository path')
  t.same(gitHostLinks('not a url', { commit: SHA }), {})
  t.same(gitHostLinks('https://github.com/acme/infra', { commit: '<script>' }), {}, 'only hex commits are linked')
  t.same(repositoryWebUrl('https://www.github.com/acme/infra/'), { host: 'github.com', repo: 'https://github.com/acme/infra' })
})

const changes: FileChange[] = [
  {
    path: 'terraform/main.tf',
    change: 'modified',
    diff: '--- a/terraform/main.tf\n+++ b/terraform/main.tf\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n',
  },
  { path: 'README.md', change: 'conflict', diff: '' },
  { path: 'terraform/modules/rds/main.tf', change: 'added', diff: '+x\n', truncated: true },
  { path: 'charts/old.yaml', change: 'deleted' },
]

t.test('the change as a tree, counts and diff lines', async (t) => {
  const tree = changeTree(changes)
  t.same(
    tree.children.map((n) => [n.name, !!n.file]),
    [
      ['charts', false],
      ['terraform', false],
      ['README.md', true],
    ],
    'folders first, then files, by name',
  )
  const terraform = tree.children[1]
  t.same(
    terraform.children.map((n) => n.path),
    ['terraform/modules', 'terraform/main.tf'],
  )
  t.equal(terraform.children[0].children[0].children[0].file?.truncated, true)
  t.same(changeCounts(changes), { added: 1, modified: 1, deleted: 1, conflict: 1 })
  t.equal(describeCounts(changes), '4 files change: 1 added, 1 modified, 1 deleted, 1 in conflict.')
  t.match(describeCounts([]), /^Nothing changes/)
  t.same(
    diffLines(changes[0].diff!).map((l) => l.kind),
    ['meta', 'meta', 'hunk', 'context', 'del', 'add'],
  )
  t.same(
    diffLines('old mode 100644\nnew mode 100755\n').map((l) => l.kind),
    ['meta', 'meta'],
    'a mode change is shown as a header line, as git shows it',
  )
})

const finished = (over: Partial<Job>): Job => ({ id: 'j', type: 'push', status: 'succeeded', ...over })

t.test('what a finished job means', async (t) => {
  t.equal(pushOutcome(finished({ status: 'running' })), null, 'nothing while it runs')
  t.match(pushOutcome(finished({ result: { dryRun: true, branch: 'main', templatesCommit: SHA, changes } })), {
    kind: 'preview',
    branch: 'main',
    changes: [{ path: 'terraform/main.tf', change: 'modified' }, {}, { truncated: true }, { diff: '' }],
  })
  t.same(
    pushOutcome(
      finished({
        result: { commit: SHA, branch: 'ies/update-1a2b3c4', strategy: 'branch', changed: true, templatesCommit: SHA, changes: [] },
      }),
    ),
    { kind: 'pushed', commit: SHA, branch: 'ies/update-1a2b3c4', strategy: 'branch', changed: true, templatesCommit: SHA, changes: [] },
  )
  t.match(pushOutcome(finished({ result: { commit: SHA, branch: 'main', changed: false } })), {
    kind: 'pushed',
    strategy: 'merge',
    changed: false,
  })
  const conflict = pushOutcome(
    finished({
      status: 'failed',
      error: {
        code: 'PUSH_CONFLICT',
        message: 'Conflicts in 1 file',
        details: { conflicts: [{ file: 'terraform/main.tf', hunks: [{ line: 12, ours: 'a\n', base: 'b\n', theirs: 'c\n' }] }] },
      } as unknown as Job['error'],
    }),
  )
  t.same(conflict, {
    kind: 'conflict',
    message: 'Conflicts in 1 file',
    conflicts: [{ file: 'terraform/main.tf', hunks: [{ line: 12, ours: 'a\n', base: 'b\n', theirs: 'c\n' }] }],
  })
  t.same(pushOutcome(finished({ status: 'failed', error: { message: 'Authentication failed' } })), {
    kind: 'failed',
    message: 'Authentication failed',
  })
})

t.test('behind and conflicts in words', async (t) => {
  const lastPush = { jobId: 'j', commit: SHA, branch: 'main', templatesCommit: 'abcdef0123456789', pushedAt: '2026-01-01T00:00:00Z' }
  t.same(behindReasons({ templates: false, configuration: false }, lastPush), [])
  t.same(behindReasons({ templates: true, configuration: true }, null), [], 'never pushed: nothing to be behind')
  const both = behindReasons({ templates: true, configuration: true }, lastPush)
  t.match(both[0], /templates changed since the last push .*abcdef0/)
  t.match(both[1], /configuration was edited since the last push/)
  t.ok(isBehind({ templates: false, configuration: true }))
  t.notOk(isBehind(undefined))
  t.equal(
    describeHunk('main.tf', { line: 12, ours: 'a\nb\n', base: 'x\n', theirs: 'y\n' }),
    'Around line 12 of main.tf, you changed 2 lines that the templates also change. Both versions are below; IES did not choose between them.',
  )
  t.match(describeHunk('main.tf', { line: 3, ours: '', base: 'x\n', theirs: 'y\n' }), /you removed 1 line that the templates now change/)
  t.match(
    describeHunk('old.tf', { line: 0, ours: 'mine\n', base: 'x\n', theirs: '' }),
    /^In old.tf, you changed 1 line that the templates no longer produce/,
  )
  t.match(describeConflict([{ file: 'a.tf', hunks: [] }]), /^Nothing was pushed: 1 file \(a.tf\) .* Your branch is untouched/)
  t.match(
    describeConflict([
      { file: 'a.tf', hunks: [] },
      { file: 'b.tf', hunks: [] },
    ]),
    /2 files/,
  )
})
