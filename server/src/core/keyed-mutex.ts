// A per-key async mutex for one process: calls with the same key run one at a time, in arrival
// order; different keys never wait for each other.
//
// It is not re-entrant: a call under a key that waits for another call with the same key waits
// forever. Code that runs under the lock and needs the locked work of a helper calls the helper's
// variant that expects the lock held (the environment summaries' `put`). It keeps no
// AsyncLocalStorage to know its holder: on Node 20 one in use turns on promise hooks for the whole
// process, which slows every promise of every request.
//
// It serialises work inside one server only. Across replicas a write also needs a guarantee from the
// database (a conditional write on a version field, atomic on MongoDB). FerretDB 1.x on SQLite has
// no atomic conditional update, so there this lock is what makes read-check-write sequences correct,
// for a single server.
export class KeyedMutex {
  /** Per key, the promise that settles when the last caller queued so far has finished. */
  private readonly tails = new Map<string, Promise<void>>()

  /** Runs `fn` once every earlier caller with `key` has finished; passes on its result or error. */
  async run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const previous = this.tails.get(key)
    let release!: () => void
    const finished = new Promise<void>((resolve) => (release = resolve))
    const tail = previous ? previous.then(() => finished) : finished
    this.tails.set(key, tail)
    try {
      if (previous) await previous
      return await fn()
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
 * process (environment creates and updates, credential deletions and defaults, summary changes). Not
 * re-entrant: `fn` must not take it again. Both repositories take it, so it lives below them.
 */
export function ownerLock<T>(db: object, userId: string, fn: () => Promise<T>): Promise<T> {
  return keyedMutexFor(db).run(`owner:${userId}`, fn)
}
