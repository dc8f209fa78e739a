// scripts/test/batch.ts runs test files one after the other in one process, each in a subtest of its
// own: a file's top-level teardown runs when that file's tests have ended (before the next file
// starts), a failing file is named and the next still runs, a file past its timeout fails and the
// process still ends, and each file gets its time comment.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'

const run = promisify(execFile)

/** This process's environment without tap's runner's variables (with TAP=1 and the like, a child's tap reports to a parent). */
const ownEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^_?TAP/.test(name)))

async function batch(t: { teardown(fn: () => unknown): void }, files: Record<string, string>, env: Record<string, string> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-batch-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // ES modules, as the project's test files are.
  await writeFile(path.join(dir, 'package.json'), '{ "type": "module" }')
  const paths = []
  for (const [name, source] of Object.entries(files)) {
    paths.push(path.join(dir, name))
    await writeFile(path.join(dir, name), source)
  }
  const done = await run(process.execPath, ['--import', 'tsx', 'scripts/test/batch.ts', ...paths], {
    env: { ...ownEnv, ...env },
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  )
  return { ...done, paths }
}

t.test("each file's tests and teardowns belong to a subtest of its own", async (t) => {
  const { code, stdout, paths } = await batch(t, {
    'a.test.ts': `import t from 'tap'
globalThis.order = ['a loaded']
t.teardown(() => globalThis.order.push('a torn down'))
t.test('a one', async (t) => { globalThis.order.push('a tested'); t.pass('a') })
`,
    'b.test.ts': `import t from 'tap'
t.test('b one', async (t) => t.same(globalThis.order, ['a loaded', 'a tested', 'a torn down'], 'a ended before b'))
t.test('b two', async (t) => { t.pass('b'); t.pass('b again') })
`,
  })
  t.equal(code, 0)
  t.match(stdout, new RegExp(`^ok 1 - ${paths[0]}`, 'm'), 'the first file is the first subtest')
  t.match(stdout, new RegExp(`^ok 2 - ${paths[1]}`, 'm'), 'the second file is the second')
  t.match(stdout, new RegExp(`^# file ${paths[1]}: [\\d.]+ s, [\\d.]+ s of CPU$`, 'm'), 'each file is timed')
  t.match(stdout, /^# \{ total: 4, pass: 4 \}$/m, "the files' assertions are counted")
})

t.test('a failing file is named and the next still runs', async (t) => {
  const { code, stdout, paths } = await batch(t, {
    'bad.test.ts': `import t from 'tap'\nt.test('bad', async (t) => t.equal(1, 2))\n`,
    'good.test.ts': `import t from 'tap'\nt.test('good', async (t) => t.pass('good'))\n`,
  })
  t.not(code, 0, 'the process fails')
  t.match(stdout, new RegExp(`^not ok 1 - ${paths[0]}`, 'm'))
  t.match(stdout, new RegExp(`^ok 2 - ${paths[1]}`, 'm'))
  t.match(stdout, /^# \{ total: 2, pass: 1, fail: 1 \}$/m)
})

t.test('a file past its timeout fails, the next still runs, and the process ends', async (t) => {
  const { code, stdout, paths } = await batch(
    t,
    {
      'hangs.test.ts': `import t from 'tap'\nt.test('hangs', () => new Promise(() => setInterval(() => {}, 1000)))\n`,
      'good.test.ts': `import t from 'tap'\nt.test('good', async (t) => t.pass('good'))\n`,
    },
    { TAP_TIMEOUT: '1' },
  )
  t.not(code, 0, 'the process fails')
  t.match(stdout, new RegExp(`^not ok 1 - ${paths[0]}`, 'm'))
  t.match(stdout, /timeout!/)
  t.match(stdout, new RegExp(`^ok 2 - ${paths[1]}`, 'm'))
})
