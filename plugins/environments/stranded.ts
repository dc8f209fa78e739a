// Stranded environments: stored values the current catalog refuses (catalog-check.ts,
// `storedProblems`: the same rule as a write). GET /:id judges the record it reads. A list row
// carries no values (the list reads the user's summary only: summaries.ts), so the problems of each
// record version under each catalog commit are kept in memory; only the rows of a page not judged
// yet are read, by `_id` (never a scan), after a start or a catalog change.
import { LRUCache } from 'lru-cache'
import type { FieldError } from '@ies/server/core/errors'
import type { TypedCatalog } from '@ies/processor-lib/contract/view'
import { storedProblems } from './catalog-check.ts'
import type { EnvironmentRecord } from './record.ts'

/** Judged record versions kept: a few bytes each when (as usual) there is no problem. */
const KEPT = 100_000

export interface ProblemRow {
  id: string
  version: number
}

export class StrandedCheck {
  private readonly judged = new LRUCache<string, FieldError[]>({ max: KEPT })

  private key(catalog: TypedCatalog, id: string, version: number): string {
    return `${catalog.commit}\0${id}\0${version}`
  }

  /** The problems of a record read already (also kept for the list). */
  of(catalog: TypedCatalog | null, record: EnvironmentRecord): FieldError[] {
    if (!catalog) return []
    const problems = storedProblems(catalog, record)
    this.judged.set(this.key(catalog, record._id, record.version ?? 0), problems)
    return problems
  }

  /**
   * The problems of each row (by id), reading through `read` only the records of rows not judged at
   * their version under this catalog. A record read at another version than its row is judged as read.
   */
  async rows(
    catalog: TypedCatalog | null,
    rows: readonly ProblemRow[],
    read: (ids: string[]) => Promise<EnvironmentRecord[]>,
  ): Promise<Map<string, FieldError[]>> {
    const out = new Map<string, FieldError[]>()
    if (!catalog) return out
    const missing: string[] = []
    for (const row of rows) {
      const known = this.judged.get(this.key(catalog, row.id, row.version))
      if (known) out.set(row.id, known)
      else missing.push(row.id)
    }
    if (missing.length > 0) for (const record of await read(missing)) out.set(record._id, this.of(catalog, record))
    return out
  }
}
