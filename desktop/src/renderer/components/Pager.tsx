// One pager for every numbered list (`GET` answers with `pagination`): the hook loads the page the
// query names, the component moves between pages. One rule: the pager shows whenever the list has
// an entry, with the count and "page n of m"; Previous and Next are off at either end.
import { useEffect, useState } from 'react'
import type { ListResult, Pagination } from '@ies/api'

/** The query of a numbered list: its page and anything else (filters, sort). */
interface PageQuery {
  page?: number
}

export interface PagedList<Q, T> {
  query: Q
  /** A new filter or sort: back to the first page. */
  filter: (patch: Partial<Q>) => void
  goTo: (page: number) => void
  result: ListResult<T> | null
  error: unknown
  loading: boolean
}

/** Loads the page `query` names (again whenever the query or `load` changes); a stale answer is dropped. */
export function usePagedList<Q extends PageQuery, T>(load: (query: Q) => Promise<ListResult<T>>, initial: Q): PagedList<Q, T> {
  const [query, setQuery] = useState<Q>(initial)
  const [result, setResult] = useState<ListResult<T> | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [loading, setLoading] = useState(true)
  useEffect(() => {
    let live = true
    setLoading(true)
    load(query)
      .then(
        (r) => live && (setResult(r), setError(null)),
        (e) => live && setError(e),
      )
      .finally(() => live && setLoading(false))
    return () => {
      live = false
    }
  }, [load, query])
  return {
    query,
    filter: (patch) => setQuery((q) => ({ ...q, page: 1, ...patch })),
    goTo: (page) => setQuery((q) => ({ ...q, page })),
    result,
    error,
    loading,
  }
}

/** The count, "page n of m", Previous and Next; `noun` names one entry and `plural` several. */
export function Pager({
  pagination: p,
  noun,
  plural = `${noun}s`,
  onPage,
}: {
  pagination: Pagination | undefined
  noun: string
  plural?: string
  onPage: (page: number) => void
}) {
  if (!p || p.total === 0) return null
  return (
    <nav className="pager" aria-label="Pagination">
      <span>
        {p.total} {p.total === 1 ? noun : plural} · page {p.page} of {Math.max(1, p.totalPages)}
      </span>
      <span className="row">
        <button type="button" className="btn small" disabled={p.page <= 1} onClick={() => onPage(p.page - 1)}>
          Previous
        </button>
        <button type="button" className="btn small" disabled={p.page >= p.totalPages} onClick={() => onPage(p.page + 1)}>
          Next
        </button>
      </span>
    </nav>
  )
}
