// How `ies push --dry-run` prints a dry run's changes: the counts of `git diff --stat` (compared with
// the git CLI's own on the same files) and then the hunks, colourless off a terminal.
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { promisify } from 'node:util'
import t from 'tap'
import { Output } from '../../cli/src/output.ts'
import { countLines, printPushDiff } from '../../cli/src/push-diff.ts'
import { tempDir } from './helpers.ts'

const run = promisify(execFile)

/** `git diff --no-index` of two texts: the unified diff and git's own --numstat counts. */
async function gitDiff(before: string, after: string) {
  const dir = tempDir(t, 'ies-cli-diff-')
  writeFileSync(path.join(dir, 'a'), before)
  writeFileSync(path.join(dir, 'b'), after)
  const diff = (cmd: string[]) =>
    run('git', ['diff', '--no-index', ...cmd, 'a', 'b'], { cwd: dir }).catch((e) => ({ stdout: e.stdout as string }))
  const unified = (await diff([])).stdout
  const [added, removed] = (await diff(['--numstat'])).stdout.split('\t').map(Number)
  return { unified, added, removed }
}

t.test('stat lines match git, hunks follow', async (t) => {
  const main = await gitDiff('a\nb\nc\nd\n', 'a\nB\nc\nd\ne\nf\n')
  const added = await gitDiff('', 'x = 1\n')
  t.same(countLines(main.unified), { added: main.added, removed: main.removed }, 'the counts are git’s')

  const stdout = new PassThrough()
  let text = ''
  stdout.on('data', (c: Buffer) => (text += c.toString()))
  const out = new Output(false, { stdout, stderr: new PassThrough() }, {})
  printPushDiff(out, [
    { path: 'terraform/main.tf', change: 'modified', diff: main.unified, truncated: false },
    { path: 'terraform/new.tf', change: 'added', diff: added.unified, truncated: true },
  ])
  t.match(text, /^ terraform\/main\.tf \| {4}4 \+\+\+-$/m)
  t.match(text, /^ terraform\/new\.tf {2}\| {4}1 \+ \(added\)$/m)
  t.match(text, /^ 2 files changed, 4 insertions\(\+\), 1 deletion\(-\)$/m)
  t.match(text, /^diff terraform\/main\.tf \(modified\)\n/m)
  t.match(text, /^@@ -1,4 \+1,6 @@$/m)
  t.match(text, /^-b\n\+B$/m)
  t.match(text, /diff truncated by the server/)
  t.notOk(text.includes('\u001b['), 'no colour codes off a terminal')
})
