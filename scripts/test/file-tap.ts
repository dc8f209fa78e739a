// What `import t from 'tap'` gives a test file run in a batch (scripts/test/batch.ts): tap's root
// test while no file is loading, and while one is, the subtest the batch opened for that file. So a
// file's top-level tests, teardowns and comments belong to its own subtest, which ends with the
// file's last test, as they belong to the root of a process of its own when it runs alone.
import tap, { type Test } from 'tap'

export const root = tap
let current: Test = tap

/** Loads a test file (`load`) with `t` as the `tap` it imports. */
export async function loadAs(t: Test, load: () => Promise<unknown>): Promise<void> {
  current = t
  try {
    await load()
  } finally {
    current = root
  }
}

const forCurrent: ProxyHandler<Test> = {
  get(_, key) {
    const value: unknown = Reflect.get(current, key)
    return typeof value === 'function' ? value.bind(current) : value
  },
}

export default new Proxy<Test>(tap, forCurrent)
