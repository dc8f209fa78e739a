// Where test files sit (scripts/test-layout/layout.ts, docs/internals/tests.md "Where a test file
// goes"): every file tap runs is at the mirrored path of the module it tests or in a cross-cutting
// folder; a file out of place is named with where the table of moves puts it, or with the rule. The
// rule and the move script (scripts/test-layout/apply.ts) also run on doctored cases, so that the
// check is known to fail.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { mapper, rewriteRelative, rewriteRepoPaths } from '../../../scripts/test-layout/apply.ts'
import { layoutProblem, mirroredFolder, readMoves, testFiles } from '../../../scripts/test-layout/layout.ts'

t.test('every test file sits at its module path or in a cross-cutting folder', async (t) => {
  const moves = readMoves()
  const files = testFiles()
  t.ok(files.length > 200, `${files.length} test files found`)
  t.same(
    files.map((file) => layoutProblem(file, moves)).filter((problem) => problem !== undefined),
    [],
    'no file out of place',
  )
  const targets = Object.values(moves).filter((to) => to.endsWith('.test.ts'))
  t.same(
    targets.map((to) => layoutProblem(to, {})).filter((problem) => problem !== undefined),
    [],
    'every move of the table lands inside the rule',
  )
})

t.test('the rule on doctored paths', async (t) => {
  t.equal(mirroredFolder('test/server/jobs/push'), 'server/src/jobs/push')
  t.equal(mirroredFolder('test/plugins/environments'), 'plugins/environments')
  t.equal(mirroredFolder('test/widgets'), undefined)
  t.equal(layoutProblem('test/server/jobs/push/x.test.ts', {}), undefined, 'a mirrored folder')
  t.equal(layoutProblem('test/e2e/x.test.ts', {}), undefined, 'a cross-cutting folder')
  t.equal(
    layoutProblem('test/widgets/x.test.ts', { 'test/widgets/x.test.ts': 'test/plugins/users/x.test.ts' }),
    'test/widgets/x.test.ts belongs at test/plugins/users/x.test.ts (scripts/test-layout/moves.json: run `npx tsx scripts/test-layout/apply.ts`)',
    'a file the table knows is named with its place',
  )
  t.match(
    layoutProblem('test/widgets/x.test.ts', {}),
    /^test\/widgets\/x\.test\.ts: test\/widgets mirrors no source folder\. A test of a module sits at test\/<the module's folder> \(test\/server\/ for server\/src\/, /,
  )
  t.match(layoutProblem('test/plugins/x.test.ts', {}), /plugins is not a source folder holding modules/, 'a layer folder is not a module')
  t.match(layoutProblem('test/plugins/no-such/x.test.ts', {}), /plugins\/no-such is not a source folder/)
})

t.test('a doctored tree: the check finds a misplaced file', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'test-layout-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const file of ['plugins/users/index.ts', 'test/plugins/users/a.test.ts', 'test/jobs/b.test.ts', 'test/harness/app.ts']) {
    mkdirSync(path.join(root, path.dirname(file)), { recursive: true })
    writeFileSync(path.join(root, file), '')
  }
  const files = testFiles(root)
  t.same(files, ['test/jobs/b.test.ts', 'test/plugins/users/a.test.ts'])
  t.same(files.map((file) => layoutProblem(file, {}, root)).filter((problem) => problem !== undefined).length, 1)
  t.match(layoutProblem('test/jobs/b.test.ts', {}, root), /^test\/jobs\/b\.test\.ts: test\/jobs mirrors no source folder/)
})

t.test('the move script rewrites paths for the new place', async (t) => {
  const moves = {
    'test/jobs/fixtures.ts': 'test/harness/jobs.ts',
    'test/jobs/push.test.ts': 'test/server/jobs/push/push.test.ts',
    'test/processor': 'test/processor-lib',
  }
  const map = mapper(moves)
  t.equal(map('test/processor/fixtures/a.json'), 'test/processor-lib/fixtures/a.json', 'a file inside a moved folder')
  t.equal(map('test/processor-lib/a.ts'), undefined, 'a folder whose name only starts alike')
  const moved = rewriteRelative(
    "import { a } from '../harness/app.ts'\nimport { b } from './fixtures.ts'\nconst c = { ...d }\nconst ROOT = join(import.meta.dirname, '..', '..')\n",
    'test/jobs/push.test.ts',
    'test/server/jobs/push/push.test.ts',
    map,
  )
  t.equal(
    moved,
    "import { a } from '../../../harness/app.ts'\nimport { b } from '../../../harness/jobs.ts'\nconst c = { ...d }\nconst ROOT = join(import.meta.dirname, '..', '..', '..', '..')\n",
  )
  t.equal(
    rewriteRelative("import { b } from '../jobs/fixtures.ts'", 'test/cli/x.test.ts', 'test/cli/x.test.ts', map),
    "import { b } from '../harness/jobs.ts'",
    'an import into a moved file',
  )
  t.equal(
    rewriteRepoPaths("['test/jobs/push.test.ts'] `test/jobs/push` `test/jobs/push-base` test/processor/ test/processor-lib/", moves),
    "['test/server/jobs/push/push.test.ts'] `test/server/jobs/push/push` `test/jobs/push-base` test/processor-lib/ test/processor-lib/",
  )
})
