// A per-key async mutex for one process: calls with the same key run one at a time, in arrival
// order; different keys never wait for each other. It is re-entrant: code already running under a
// key (in the same async context, tracked with AsyncLocalStorage) runs at once instead of waiting
// for itself, so a repository method may take the lock although its caller already holds it.
//
// It serialises work inside one server only. Across replicas a write also needs a guarantee from the
// database (a conditional write on a version field, atomic on MongoDB). FerretDB 1.x on SQLite has
// no atomic conditional update, so there this lock is what makes read-check-write sequences correct,
// for a single server.
//
// Caveat of re-entrance: work started under the lock and left running after it is released (a
// promise nobody awaits) still counts as holding it. Await everything done under the lock.
import { AsyncLocalStorage } from 'node:async_hooks'

export class KeyedMutex {
  /** Per key, the promise that settles when the last caller queued so far has finished. */
  private readonly tails = new Map<string, Promise<void>>()
  private readonly held = new AsyncLocalStorage<ReadonlySet<string>>()

  /** Runs `fn` once every earlier caller with `key` has finished; passes on its result or error. */
  async run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const held = this.held.getStore()
    if (held?.has(key)) return fn()
    const previous = this.tails.get(key)
    let release!: () => void
    const finished = new Promise<void>((resolve) => (release = resolve))
    const tail = previous ? previous.then(() => finished) : finished
    this.tails.set(key, tail)
    try {
      if (previous) await previous
      return await this.held.run(new Set(held).add(key), fn)
    } finally {
      release()
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }

  /** True while a caller holds or waits for the key. */
  busy(key: string): boolean {
    return this.tails.has(key)
  }
}

const mutexes = new WeakMap<object, KeyedMutex>()

/** The mutex of an owner object (e.g. a database handle): every caller passing it shares one. */
export function keyedMutexFor(owner: object): KeyedMutex {
  let mutex = mutexes.get(owner)
  if (!mutex) {
    mutex = new KeyedMutex()
    mutexes.set(owner, mutex)
  }
  return mutex
}

/**
 * Runs `fn` while no other write of this user's environments or cloud credentials runs in this
 * process (environment creates and updates, credential deletions and defaults). Re-entrant. Both
 * repositories take it, so it lives below them.
 */
export function ownerLock<T>(db: object, userId: string, fn: () => Promise<T>): Promise<T> {
  return keyedMutexFor(db).run(`owner:${userId}`, fn)
}
