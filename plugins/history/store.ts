// Where the history of environments is kept (collection `environmentHistory`), read only by exact
// `_id` but for the admin export and the retention sweep (the embedded store, FerretDB, answers any
// other filter by reading the whole table):
//   head   `_id: <environmentId>`      the entry count (the number of the newest entry) and a version
//   pages  `_id: <environmentId>:<n>`  entries (n * PAGE_SIZE + 1) to (n + 1) * PAGE_SIZE, oldest first
// An append takes the next number by a versioned write of the head (server/src/core/versioned-write.ts:
// atomic on MongoDB, so replicas never share a number; in one process appends to one environment
// also take turns), then pushes the entry onto its page. A page of newest-first entries is one or two
// page reads, whatever the length of the history. Entries are never changed; a deleted environment's
// head and pages go when its retention ends (`prune`).
import type { Collection, Db } from 'mongodb'
import { isDuplicateKey } from '@ies/server/core/db'
import { KeyedMutex } from '@ies/server/core/keyed-mutex'
import { replaceAtVersion } from '@ies/server/core/versioned-write'
import type { ChangeKind, Configuration, FieldChange } from '@ies/api/schemas/history'

/** Entries per stored page: a first page of 20 newest-first is at most two reads, a page of 100 at most three. */
export const PAGE_SIZE = 50

/** An append waiting its turn, written with the others waiting when its turn comes. */
interface Waiting {
  entry: NewEntry
  retainUntil?: Date
  resolve(id: number): void
  reject(err: Error): void
}

/** How often an append retries a head another replica wrote first. */
const APPEND_ATTEMPTS = 20

/** An entry as stored (`at` a Date). */
export interface StoredEntry {
  id: number
  environmentId: string
  environmentName: string
  kind: ChangeKind
  at: Date
  actor: { userId: string; username: string }
  requestId: string
  jobId?: string
  changes?: FieldChange[]
  secretsChanged?: string[]
  restoredFrom?: number
  credentialId?: string
  plan?: string
  error?: { code: string; message: string }
  configuration?: Configuration
}

export type NewEntry = Omit<StoredEntry, 'id'>

/**
 * An entry as its page holds it: the diff and the configuration as JSON text. The database never
 * looks into them, and the embedded store's cost of reading a document grows with its number of
 * fields (a configuration of every service has hundreds): as text, a page reads several times faster.
 */
type PageEntry = Omit<StoredEntry, 'changes' | 'configuration'> & { changes?: string; configuration?: string; detached?: true }

/**
 * An entry whose diff and configuration together are longer than this keeps them in a document of
 * its own (`<environmentId>:e<number>`, `detached` on the page): large chart values changed often
 * would otherwise take a page past the 16 MB a document may hold.
 */
export const INLINE_MAX_CHARS = 16 * 1024

interface Detached {
  _id: string
  environmentId: string
  changes?: string
  configuration?: string
}

const detachedId = (environmentId: string, entryId: number) => `${environmentId}:e${entryId}`

function encode({ changes, configuration, ...rest }: StoredEntry): PageEntry {
  return {
    ...rest,
    ...(changes && { changes: JSON.stringify(changes) }),
    ...(configuration && { configuration: JSON.stringify(configuration) }),
  }
}

function decode({ changes, configuration, ...rest }: PageEntry): StoredEntry {
  return {
    ...rest,
    ...(changes !== undefined && { changes: JSON.parse(changes) as FieldChange[] }),
    ...(configuration !== undefined && { configuration: JSON.parse(configuration) as Configuration }),
  }
}

interface Head {
  _id: string
  count: number
  version: number
  environmentName: string
  /** Set when the environment is deleted: the history goes after this instant. */
  retainUntil?: Date
}

interface Page {
  _id: string
  environmentId: string
  page: number
  entries: PageEntry[]
  /** Time of the first and the last entry appended: what the export selects pages by. */
  firstAt: Date
  lastAt: Date
}

const pageId = (environmentId: string, n: number) => `${environmentId}:${n}`
const pageOf = (entryId: number) => Math.floor((entryId - 1) / PAGE_SIZE)

/**
 * The head and pages that hold a whole history (entries numbered 1..n, oldest first), as appends
 * would have written them: how a benchmark seeds a long history in bulk.
 */
export function documentsOf(environmentId: string, entries: StoredEntry[]): { head: Head; pages: Page[] } {
  const pages: Page[] = []
  for (const entry of entries) {
    const n = pageOf(entry.id)
    pages[n] ??= { _id: pageId(environmentId, n), environmentId, page: n, entries: [], firstAt: entry.at, lastAt: entry.at }
    pages[n].entries.push(encode(entry))
    pages[n].lastAt = entry.at
  }
  const last = entries.at(-1)
  return {
    head: { _id: environmentId, count: last?.id ?? 0, version: entries.length, environmentName: last?.environmentName ?? '' },
    pages,
  }
}

export class HistoryStore {
  private readonly heads: Collection<Head>
  private readonly pages: Collection<Page>
  private readonly details: Collection<Detached>
  private readonly appending = new KeyedMutex()
  /** By environment: the appends waiting for the one being written (see `append`). */
  private readonly waiting = new Map<string, Waiting[]>()

  constructor(private readonly db: Db) {
    // One collection, three shapes, told apart by `_id`.
    this.heads = db.collection<Head>('environmentHistory')
    this.pages = db.collection<Page>('environmentHistory')
    this.details = db.collection<Detached>('environmentHistory')
  }

  /** Indexes for the background readers only (export by time, retention); the routes read by `_id`. */
  async indexes(): Promise<void> {
    await this.pages.createIndex({ lastAt: 1 }, { name: 'last_at', sparse: true })
    await this.pages.createIndex({ environmentId: 1, page: 1 }, { name: 'environment_page', sparse: true })
    await this.heads.createIndex({ retainUntil: 1 }, { name: 'retain_until', sparse: true })
  }

  /**
   * Appends an entry; its number. `retainUntil` marks the history of a deleted environment. Appends
   * to one environment that arrive while one is being written wait, and are then written together:
   * one head write takes their numbers, one write per page pushes them, so many changes of one
   * environment at once cost a few writes on the requests' path rather than two each, one after another.
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
    const retainUntil = batch.findLast((w) => w.retainUntil)?.retainUntil
    const last = await this.nextNumber(batch[batch.length - 1].entry, retainUntil, batch.length)
    const ids = batch.map((_, i) => last - batch.length + 1 + i)
    const onPages = await Promise.all(batch.map((w, i) => this.detachedIfLarge(encode({ id: ids[i], ...w.entry }))))
    const environmentId = batch[0].entry.environmentId
    for (const page of new Set(ids.map(pageOf))) {
      const on = batch.map((w, i) => ({ ...w, id: ids[i], onPage: onPages[i] })).filter((w) => pageOf(w.id) === page)
      await this.pages.updateOne(
        { _id: pageId(environmentId, page) },
        {
          $push: { entries: { $each: on.map((w) => w.onPage) } },
          $set: { lastAt: on[on.length - 1].entry.at },
          $setOnInsert: { environmentId, page, firstAt: on[0].entry.at },
        },
        { upsert: true },
      )
    }
    return ids
  }

  /** Takes the next `n` entry numbers by a write of the head conditional on the version read; the last of them. */
  private async nextNumber(entry: NewEntry, retainUntil: Date | undefined, n = 1): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const head = await this.heads.findOne({ _id: entry.environmentId })
      const next: Head = {
        _id: entry.environmentId,
        count: (head?.count ?? 0) + n,
        version: (head?.version ?? 0) + 1,
        environmentName: entry.environmentName,
        ...((retainUntil ?? head?.retainUntil) && { retainUntil: retainUntil ?? head?.retainUntil }),
      }
      if (head ? await replaceAtVersion(this.db, this.heads, head.version, next) : await this.inserted(next)) return next.count
      if (attempt >= APPEND_ATTEMPTS) throw new Error('history head kept changing under the append')
    }
  }

  /** The entry as its page holds it: a large diff and configuration written to a document of their own first. */
  private async detachedIfLarge(entry: PageEntry): Promise<PageEntry> {
    const { changes, configuration, ...rest } = entry
    if ((changes?.length ?? 0) + (configuration?.length ?? 0) <= INLINE_MAX_CHARS) return entry
    await this.details.replaceOne(
      { _id: detachedId(entry.environmentId, entry.id) },
      { environmentId: entry.environmentId, ...(changes && { changes }), ...(configuration && { configuration }) },
      { upsert: true },
    )
    return { ...rest, detached: true }
  }

  /** Page entries as entries: detached diffs and configurations read back (by `_id`), the text parsed. */
  private async decoded(entries: PageEntry[]): Promise<StoredEntry[]> {
    return Promise.all(
      entries.map(async ({ detached, ...entry }) => {
        if (!detached) return decode(entry)
        const details = await this.details.findOne({ _id: detachedId(entry.environmentId, entry.id) })
        return decode({
          ...entry,
          ...(details?.changes && { changes: details.changes }),
          ...(details?.configuration && { configuration: details.configuration }),
        })
      }),
    )
  }

  private async inserted(head: Head): Promise<boolean> {
    try {
      await this.heads.insertOne(head)
      return true
    } catch (err) {
      if (isDuplicateKey(err)) return false
      throw err
    }
  }

  /** How many entries the environment's history has (the newest entry's number); 0 for none. */
  async count(environmentId: string): Promise<number> {
    return (await this.heads.findOne({ _id: environmentId }, { projection: { count: 1 } }))?.count ?? 0
  }

  /** Entries `from`..`to` (numbers, inclusive), newest first: the one or few pages that hold them. */
  async range(environmentId: string, from: number, to: number): Promise<StoredEntry[]> {
    if (to < from) return []
    const numbers = Array.from({ length: pageOf(to) - pageOf(from) + 1 }, (_, i) => pageOf(from) + i)
    const pages = await Promise.all(numbers.map((n) => this.pages.findOne({ _id: pageId(environmentId, n) })))
    return this.decoded(
      pages
        .flatMap((p) => p?.entries ?? [])
        .filter((e) => e.id >= from && e.id <= to)
        .sort((a, b) => b.id - a.id),
    )
  }

  /** One entry, or null. */
  async entry(environmentId: string, id: number): Promise<StoredEntry | null> {
    return (await this.range(environmentId, id, id))[0] ?? null
  }

  /** Every entry of one environment (also a deleted one) between two instants, oldest first, a page at a time. */
  async *ofEnvironment(environmentId: string, from: Date, to: Date): AsyncGenerator<StoredEntry> {
    const count = await this.count(environmentId)
    for (let n = 0; n <= pageOf(count); n++) {
      const page = await this.pages.findOne({ _id: pageId(environmentId, n) })
      yield* await this.inWindow(page, from, to)
    }
  }

  /**
   * Every entry between two instants, environment by environment, each oldest first: the pages whose
   * entries may fall in the window, read one at a time (the export; on the embedded store a scan).
   */
  async *between(from: Date, to: Date): AsyncGenerator<StoredEntry> {
    const cursor = this.pages.find({ lastAt: { $gte: from }, firstAt: { $lt: to } }).sort({ environmentId: 1, page: 1 })
    try {
      for await (const page of cursor) yield* await this.inWindow(page, from, to)
    } finally {
      await cursor.close()
    }
  }

  /** Removes the histories whose retention ended; how many environments' histories went. */
  async prune(now = new Date()): Promise<number> {
    const expired = await this.heads.find({ retainUntil: { $lt: now } }, { projection: { _id: 1, count: 1 } }).toArray()
    for (const head of expired) {
      // Pages and detached entries carry `environmentId`; the head does not, and goes last.
      await this.pages.deleteMany({ environmentId: head._id })
      await this.heads.deleteOne({ _id: head._id })
    }
    return expired.length
  }

  /** A page's entries between two instants, oldest first. */
  private inWindow(page: Page | null, from: Date, to: Date): Promise<StoredEntry[]> {
    return this.decoded((page?.entries ?? []).filter((e) => e.at >= from && e.at < to).sort((a, b) => a.id - b.id))
  }
}
