// Full pages of entries in one document each, for reads: `<environmentId>:p<n>` holds entries
// (n * PAGE_SIZE + 1) to (n + 1) * PAGE_SIZE but the large ones (store.ts). Written once, by the
// append that takes a page's last number (by then every entry of the page is stored): an insert,
// so two servers sealing one page at once write it once (both would write the same). A page not
// sealed (its sealer died) reads from its entries' documents, one by one: slower, never wrong.
import type { Collection, Db } from 'mongodb'
import { isDuplicateKey } from '@ies/server/core/db'
import type { EncodedEntry } from './entry.ts'
import { entriesOfPages, PAGE_SIZE, pageOf } from './legacy-pages.ts'

/**
 * An entry whose diff and configuration together are longer than this stays out of its sealed page
 * (read from its own document): a page of 50 large chart values could pass the 16 MB a document may hold.
 */
export const INLINE_MAX_CHARS = 16 * 1024

interface Sealed {
  _id: string
  environmentId: string
  /** The page's number (no `page`, `firstAt` or `lastAt`: the legacy pages' export index skips it). */
  sealed: number
  entries: EncodedEntry[]
}

const sealedId = (environmentId: string, n: number) => `${environmentId}:p${n}`

/** The sealed page that `last` (a multiple of PAGE_SIZE) completes, of that page's entries. */
export function sealedPage(environmentId: string, last: number, entries: EncodedEntry[]): Sealed {
  const small = entries.filter((e) => !e.detached && (e.changes?.length ?? 0) + (e.configuration?.length ?? 0) <= INLINE_MAX_CHARS)
  return { _id: sealedId(environmentId, pageOf(last)), environmentId, sealed: pageOf(last), entries: small }
}

export class SealedPages {
  private readonly pages: Collection<Sealed>

  constructor(db: Db) {
    this.pages = db.collection<Sealed>('environmentHistory')
  }

  /** The page that `last` (a multiple of PAGE_SIZE) completes, from its entries (read by `entries`). */
  async seal(environmentId: string, last: number, entries: (from: number, to: number) => Promise<EncodedEntry[]>): Promise<void> {
    const page = sealedPage(environmentId, last, await entries(last - PAGE_SIZE + 1, last))
    try {
      await this.pages.insertOne(page)
    } catch (err) {
      if (!isDuplicateKey(err)) throw err
    }
  }

  /** Entries `from`..`to` that sealed pages hold, by number. */
  async range(environmentId: string, from: number, to: number): Promise<Map<number, EncodedEntry>> {
    return entriesOfPages(from, to, (n) => this.pages.findOne({ _id: sealedId(environmentId, n) }))
  }
}
