// The pages of entries that appends wrote before each entry had a document of its own (store.ts):
// `<environmentId>:<n>` holds entries (n * PAGE_SIZE + 1) to (n + 1) * PAGE_SIZE, oldest first, and
// `<environmentId>:e<number>` the diff and configuration of a large one (`detached` on its page).
// Read by `_id` (a range) or by time (the export); never written again, removed by the retention sweep.
import type { Collection, Db } from 'mongodb'
import { decode, type EncodedEntry, type StoredEntry } from './entry.ts'

/** Entries per legacy page. */
export const PAGE_SIZE = 50

interface Page {
  _id: string
  environmentId: string
  page: number
  entries: EncodedEntry[]
  /** Time of the first and the last entry appended: what the export selects pages by. */
  firstAt: Date
  lastAt: Date
}

interface Detached {
  _id: string
  environmentId: string
  changes?: string
  configuration?: string
}

const pageId = (environmentId: string, n: number) => `${environmentId}:${n}`
const detachedId = (environmentId: string, entryId: number) => `${environmentId}:e${entryId}`
/** The page (0, 1, …) that holds entry `entryId`. */
export const pageOf = (entryId: number) => Math.floor((entryId - 1) / PAGE_SIZE)

/** Entries `from`..`to` held by the pages that `read` finds (by page number), by number: legacy and sealed pages alike. */
export async function entriesOfPages(
  from: number,
  to: number,
  read: (page: number) => Promise<{ entries: EncodedEntry[] } | null>,
): Promise<Map<number, EncodedEntry>> {
  const numbers = Array.from({ length: pageOf(to) - pageOf(from) + 1 }, (_, i) => pageOf(from) + i)
  const pages = await Promise.all(numbers.map(read))
  const found = new Map<number, EncodedEntry>()
  for (const e of pages.flatMap((p) => p?.entries ?? [])) if (e.id >= from && e.id <= to) found.set(e.id, e)
  return found
}

export class LegacyPages {
  private readonly pages: Collection<Page>
  private readonly details: Collection<Detached>

  constructor(db: Db) {
    this.pages = db.collection<Page>('environmentHistory')
    this.details = db.collection<Detached>('environmentHistory')
  }

  async indexes(): Promise<void> {
    await this.pages.createIndex({ lastAt: 1 }, { name: 'last_at', sparse: true })
    await this.pages.createIndex({ environmentId: 1, page: 1 }, { name: 'environment_page', sparse: true })
  }

  /** Entries `from`..`to` that legacy pages hold (none for a history begun since), by number. */
  async range(environmentId: string, from: number, to: number): Promise<Map<number, EncodedEntry>> {
    return entriesOfPages(from, to, (n) => this.pages.findOne({ _id: pageId(environmentId, n) }))
  }

  /** The entries of pages that may hold some between two instants, environment by environment, each oldest first. */
  async *between(from: Date, to: Date): AsyncGenerator<StoredEntry> {
    const cursor = this.pages.find({ lastAt: { $gte: from }, firstAt: { $lt: to } }).sort({ environmentId: 1, page: 1 })
    try {
      for await (const page of cursor) {
        yield* await this.decoded(page.entries.filter((e) => e.at >= from && e.at < to).sort((a, b) => a.id - b.id))
      }
    } finally {
      await cursor.close()
    }
  }

  /** Encoded entries as entries: detached diffs and configurations read back (by `_id`), the text parsed. */
  decoded(entries: EncodedEntry[]): Promise<StoredEntry[]> {
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
}
