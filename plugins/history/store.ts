// Where the history of environments is kept (collection `environmentHistory`), read only by exact
// `_id` but for the admin export and the retention sweep (the embedded store, FerretDB, answers any
// other filter by reading the whole table):
//   entry  `_id: <environmentId>:n<number>`  one entry; its insert is what takes the number
//   head   `_id: <environmentId>`            the newest number known (a hint, see `count`) and the name
//   retain `_id: <environmentId>:retain`     when a deleted environment's history goes
//   pages  `_id: <environmentId>:<n>`        what appends wrote before entries had documents of their
//                                            own: read, never written (legacy-pages.ts)
// An append takes the next number by inserting the entry under it: a unique `_id` is inserted once,
// on FerretDB as on MongoDB, so two servers never take one number; the loser tries the next. A
// number is tried only once every number below it is taken, so the numbers have no gap, and an entry
// is stored by the same single write that takes its number, so a crash cannot leave a number without
// an entry. Entries are never changed; a deleted environment's documents go when its retention ends
// (`prune`).
import type { Collection, Db } from 'mongodb'
import { isDuplicateKey } from '@ies/server/core/db'
import { KeyedMutex } from '@ies/server/core/keyed-mutex'
import { decode, encode, type EncodedEntry, type NewEntry, type StoredEntry } from './entry.ts'
import { LegacyPages, PAGE_SIZE } from './legacy-pages.ts'
import { mergeSorted } from './merge.ts'
import { SealedPages, sealedPage } from './sealed-pages.ts'

export type { NewEntry, StoredEntry } from './entry.ts'
export { PAGE_SIZE } from './legacy-pages.ts'
export { INLINE_MAX_CHARS } from './sealed-pages.ts'

/** An append waiting its turn, written with the others waiting when its turn comes. */
interface Waiting {
  entry: NewEntry
  retainUntil?: Date
  resolve(id: number): void
  reject(err: Error): void
}

/**
 * How many numbers an append may find taken by other servers before it gives up: each is an entry
 * another server stored meanwhile, so only a fault (a duplicate key that is not a number) reaches it.
 */
const CLAIM_COLLISIONS = 10_000

/** One entry in a document of its own: its `_id` is its number's claim. */
type EntryDoc = EncodedEntry & { _id: string }

interface Head {
  _id: string
  /**
   * A number every number up to which is taken (raised after each append, never lowered on MongoDB;
   * on FerretDB two raises at once may leave the lower one): where `count` and an append start looking.
   */
  count: number
  environmentName: string
  /** Legacy heads: the version of their versioned writes, and `retainUntil` (now in `Retain`). */
  version?: number
  retainUntil?: Date
}

/** Set when the environment is deleted: its history goes after this instant. */
interface Retain {
  _id: string
  environmentId: string
  retainUntil: Date
}

const entryId = (environmentId: string, n: number) => `${environmentId}:n${n}`
const retainId = (environmentId: string) => `${environmentId}:retain`
const numbers = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i)

/** Of an ordered insert that failed: how many documents went in before the first, a taken `_id`; undefined for another error. */
function insertedBeforeDuplicate(err: unknown): number | undefined {
  const writeErrors = (err as { writeErrors?: { index: number; code?: number }[] | { index: number; code?: number } }).writeErrors
  const first = writeErrors === undefined ? undefined : [writeErrors].flat()[0]
  if (first) return first.code === 11000 ? first.index : undefined
  return isDuplicateKey(err) ? 0 : undefined
}

/**
 * The head and entry documents that hold a whole history (entries numbered 1..n, oldest first), as
 * appends would have written them: how a benchmark seeds a long history in bulk.
 */
export function documentsOf(environmentId: string, entries: StoredEntry[]) {
  const last = entries.at(-1)
  const docs: EntryDoc[] = entries.map((e) => ({ _id: entryId(environmentId, e.id), ...encode(e) }))
  const full = Math.floor(entries.length / PAGE_SIZE)
  return {
    head: { _id: environmentId, count: last?.id ?? 0, environmentName: last?.environmentName ?? '' } satisfies Head,
    entries: docs,
    pages: Array.from({ length: full }, (_, n) =>
      sealedPage(
        environmentId,
        (n + 1) * PAGE_SIZE,
        docs.slice(n * PAGE_SIZE, (n + 1) * PAGE_SIZE).map((d) => withoutId(d)),
      ),
    ),
  }
}

export class HistoryStore {
  private readonly heads: Collection<Head>
  private readonly entries: Collection<EntryDoc>
  private readonly retained: Collection<Retain>
  private readonly legacy: LegacyPages
  private readonly sealed: SealedPages
  private readonly appending = new KeyedMutex()
  /** By environment: the appends waiting for the one being written (see `append`). */
  private readonly waiting = new Map<string, Waiting[]>()

  /** `onIndexFailure`: told when an append stored its entries but not the head's hint or a full page's copy. */
  constructor(
    db: Db,
    private readonly onIndexFailure: (err: Error) => void = () => {},
  ) {
    // One collection, several shapes, told apart by `_id`.
    this.heads = db.collection<Head>('environmentHistory')
    this.entries = db.collection<EntryDoc>('environmentHistory')
    this.retained = db.collection<Retain>('environmentHistory')
    this.legacy = new LegacyPages(db)
    this.sealed = new SealedPages(db)
  }

  /** Indexes for the background readers only (export by time, retention); the routes read by `_id`. */
  async indexes(): Promise<void> {
    await this.entries.createIndex({ at: 1 }, { name: 'at', sparse: true })
    await this.retained.createIndex({ retainUntil: 1 }, { name: 'retain_until', sparse: true })
    await this.legacy.indexes()
  }

  /**
   * Appends an entry; its number. `retainUntil` marks the history of a deleted environment. Appends
   * to one environment that arrive while one is being written wait, and are then written together:
   * one ordered insert takes their numbers, so many changes of one environment at once cost a few
   * writes on the requests' path rather than one each, one after another.
   */
  append(entry: NewEntry, retainUntil?: Date): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const key = entry.environmentId
      const waiting = this.waiting.get(key)
      if (waiting) return void waiting.push({ entry, retainUntil, resolve, reject })
      const batch: Waiting[] = [{ entry, retainUntil, resolve, reject }]
      this.waiting.set(key, batch)
      void this.appending.run(key, async () => {
        // From here on, new appends start the next batch.
        this.waiting.delete(key)
        try {
          const ids = await this.appendAll(batch)
          batch.forEach((w, i) => w.resolve(ids[i]))
        } catch (err) {
          for (const w of batch) w.reject(err as Error)
        }
      })
    })
  }

  /** Writes the entries of one environment, in order: their numbers. */
  private async appendAll(batch: Waiting[]): Promise<number[]> {
    const environmentId = batch[0].entry.environmentId
    // Before the entry: a crash in between leaves a deleted environment's history that still goes.
    const retainUntil = batch.findLast((w) => w.retainUntil)?.retainUntil
    if (retainUntil) await this.upsert(this.retained, retainId(environmentId), { $set: { environmentId, retainUntil } })
    const ids = await this.claim(
      environmentId,
      batch.map((w) => w.entry),
    )
    // The entries are stored. The head's hint and a full page's copy only speed up reads (a count
    // reads past the hint, a page without its copy is read entry by entry): their failure is
    // reported, and the append, done, still answers its numbers.
    try {
      const update = { $max: { count: ids[ids.length - 1] }, $set: { environmentName: batch[batch.length - 1].entry.environmentName } }
      await this.upsert(this.heads, environmentId, update)
      for (const last of ids.filter((id) => id % PAGE_SIZE === 0)) {
        await this.sealed.seal(environmentId, last, (from, to) => this.encodedRange(environmentId, from, to))
      }
    } catch (err) {
      this.onIndexFailure(err as Error)
    }
    return ids
  }

  /**
   * Stores the entries under the next free numbers, in order: an ordered insert from the first number
   * not known to be taken; where it meets a taken number (another server's entry), the rest starts
   * at the first number found free after it (or after the head's hint if that is further), read by
   * `_id`. So a number is tried only when every number below it is taken.
   */
  private async claim(environmentId: string, entries: NewEntry[]): Promise<number[]> {
    const ids: number[] = []
    let next = (await this.hint(environmentId)) + 1
    for (let collisions = 0; ids.length < entries.length; collisions++) {
      if (collisions > CLAIM_COLLISIONS) throw new Error('history append kept meeting taken numbers')
      const rest = entries.slice(ids.length)
      const docs = rest.map((e, i) => ({ _id: entryId(environmentId, next + i), ...encode({ id: next + i, ...e }) }))
      let stored = docs.length
      try {
        await this.entries.insertMany(docs, { ordered: true })
      } catch (err) {
        const before = insertedBeforeDuplicate(err)
        if (before === undefined) throw err
        stored = before
      }
      ids.push(...numbers(next, next + stored - 1))
      next += stored
      // `next` is taken too, if entries remain: the rest go after it, past what is taken since.
      if (ids.length < entries.length) next = await this.firstFree(environmentId, Math.max(next, await this.hint(environmentId)) + 1)
    }
    return ids
  }

  /** An update of one document by `_id`, inserting it if absent (two servers inserting at once: the second updates). */
  private async upsert<T extends { _id: string }>(collection: Collection<T>, id: string, update: object): Promise<void> {
    const filter = { _id: id } as never
    try {
      await collection.updateOne(filter, update, { upsert: true })
    } catch (err) {
      if (!isDuplicateKey(err)) throw err
      await collection.updateOne(filter, update)
    }
  }

  private async hint(environmentId: string): Promise<number> {
    return (await this.heads.findOne({ _id: environmentId }, { projection: { count: 1 } }))?.count ?? 0
  }

  /**
   * How many entries the environment's history has (the newest entry's number); 0 for none. The head's
   * hint, then the numbers after it whose entries exist (an append stores its entries before it raises
   * the hint): usually one read more.
   */
  async count(environmentId: string): Promise<number> {
    return (await this.firstFree(environmentId, (await this.hint(environmentId)) + 1)) - 1
  }

  /** The first number from `n` on without an entry, `n` being one whose predecessors are all taken. */
  private async firstFree(environmentId: string, n: number): Promise<number> {
    while (await this.entries.findOne({ _id: entryId(environmentId, n) }, { projection: { _id: 1 } })) n++
    return n
  }

  /** Entries `from`..`to` (numbers, inclusive), newest first. */
  async range(environmentId: string, from: number, to: number): Promise<StoredEntry[]> {
    return this.legacy.decoded((await this.encodedRange(environmentId, from, to)).reverse())
  }

  /** Entries `from`..`to` as stored, oldest first: the pages that may hold them, then the documents of those they do not. */
  private async encodedRange(environmentId: string, from: number, to: number): Promise<EncodedEntry[]> {
    if (to < from) return []
    const [legacy, sealed] = await Promise.all([this.legacy.range(environmentId, from, to), this.sealed.range(environmentId, from, to)])
    const found = new Map([...legacy, ...sealed])
    const missing = numbers(from, to).filter((n) => !found.has(n))
    const docs = await Promise.all(missing.map((n) => this.entries.findOne({ _id: entryId(environmentId, n) })))
    for (const doc of docs) if (doc) found.set(doc.id, withoutId(doc))
    return [...found.values()].sort((a, b) => a.id - b.id)
  }

  /** One entry, or null. */
  async entry(environmentId: string, id: number): Promise<StoredEntry | null> {
    return (await this.range(environmentId, id, id))[0] ?? null
  }

  /** Every entry of one environment (also a deleted one) between two instants, oldest first, PAGE_SIZE at a time. */
  async *ofEnvironment(environmentId: string, from: Date, to: Date): AsyncGenerator<StoredEntry> {
    const count = await this.count(environmentId)
    for (let first = 1; first <= count; first += PAGE_SIZE) {
      const entries = await this.range(environmentId, first, Math.min(count, first + PAGE_SIZE - 1))
      yield* entries.filter((e) => e.at >= from && e.at < to).reverse()
    }
  }

  /**
   * Every entry between two instants, environment by environment, each oldest first: the entries
   * selected by `at`, merged with those of the legacy pages (the export; on the embedded store a scan).
   */
  async *between(from: Date, to: Date): AsyncGenerator<StoredEntry> {
    const cursor = this.entries.find({ at: { $gte: from, $lt: to } }).sort({ environmentId: 1, id: 1 })
    const entries = (async function* () {
      for await (const doc of cursor) yield decode(withoutId(doc))
    })()
    try {
      yield* mergeSorted(this.legacy.between(from, to), entries, byEnvironmentAndNumber)
    } finally {
      await cursor.close()
    }
  }

  /** Removes the histories whose retention ended; how many environments' histories went. */
  async prune(now = new Date()): Promise<number> {
    const expired = await this.retained.find({ retainUntil: { $lt: now } }, { projection: { _id: 1, environmentId: 1 } }).toArray()
    // Legacy heads carry `retainUntil` themselves, and no `environmentId`.
    const ids = [...new Set(expired.map((d: Partial<Retain>) => d.environmentId ?? d._id!))]
    for (const id of ids) {
      // Entries, legacy pages and detached entries carry `environmentId`; the head and what marks the end go last.
      await this.entries.deleteMany({ environmentId: id, _id: { $ne: retainId(id) } })
      await this.heads.deleteOne({ _id: id })
      await this.retained.deleteOne({ _id: retainId(id) })
    }
    return ids.length
  }
}

function withoutId({ _id, ...entry }: EntryDoc): EncodedEntry {
  void _id
  return entry
}

function byEnvironmentAndNumber(a: StoredEntry, b: StoredEntry): number {
  return a.environmentId < b.environmentId ? -1 : a.environmentId > b.environmentId ? 1 : a.id - b.id
}
