// A server watching its templates folder (tree-watch.ts) ends its watchers when it closes: the tests
// start many servers in one process, and every watcher left open would hold an inotify watch.
import { createHook } from 'node:async_hooks'
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { eventually } from '../../harness/eventually.ts'

t.test('closing the server closes the watchers of its templates folder', async (t) => {
  const opened = new Set<number>()
  const ended = new Set<number>()
  const hook = createHook({
    init: (id, type) => {
      if (type === 'FSEVENTWRAP') opened.add(id)
    },
    destroy: (id) => {
      if (opened.has(id)) ended.add(id)
    },
  }).enable()
  t.teardown(() => hook.disable())
  const { app } = await startTestApp(t)
  await app.templates.load()
  await app.templates.load()
  t.ok(opened.size > 10, `the bundled templates watched (${opened.size} watchers)`)
  t.equal(ended.size, 0, 'and kept while the server runs')
  await app.close()
  // A closed handle's destroy hook runs on a later turn.
  t.equal(
    await eventually(
      async () => ended.size,
      (n) => n === opened.size,
    ),
    opened.size,
    'every watcher closed with the server',
  )
})
