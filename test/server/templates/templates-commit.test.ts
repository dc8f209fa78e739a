// The templates commit an environment view compares with its last push: a templates source that is
// slow or failing (an unreachable TEMPLATES_REPO) must not hold the view; the last commit seen is used.
import t from 'tap'
import { currentTemplatesCommit } from '../../../server/src/jobs/push/push-records.ts'
import type { TemplatesSource } from '../../../server/src/templates/source.ts'

const log = { warn: () => {} } as never
const unversioned = { version: async () => null, distance: async () => null }

t.test('a slow or failing templates source answers the last commit seen', async (t) => {
  let next: () => Promise<{ commit: string; inputs: [] }> = async () => ({ commit: 'c1', inputs: [] })
  const source: TemplatesSource = { origin: 'test', load: () => next(), ...unversioned }
  t.equal(await currentTemplatesCommit(source, log, 1000), 'c1')
  next = () => new Promise(() => {})
  t.equal(await currentTemplatesCommit(source, log, 20), 'c1', 'a load that never ends: the last commit seen')
  next = async () => {
    throw new Error('unreachable')
  }
  t.equal(await currentTemplatesCommit(source, log, 1000), 'c1', 'a failing load: the last commit seen')
  const fresh: TemplatesSource = { origin: 'fresh', load: () => Promise.reject(new Error('down')), ...unversioned }
  t.equal(await currentTemplatesCommit(fresh, log, 1000), null, 'nothing seen yet: null')
})
