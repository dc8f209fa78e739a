// What the list screens share (Teams, Approvals, Cloud credentials): the list loaded once and again
// after each change (`useList`), a change that says so or shows the server's refusal (`useChange`),
// and the list itself: a spinner while it loads, an empty state, or a table whose last column holds
// the row's actions under a header only a screen reader reads (`ListTable`).
import { useEffect, useState, type ReactNode } from 'react'
import { EmptyState, Spinner } from './ui.tsx'

/** A list read with `read` when `deps` change; `reload` reads it again; `error` the last refusal. */
export function useList<T>(read: () => Promise<T[]>, deps: readonly unknown[]) {
  const [items, setItems] = useState<T[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const reload = () => read().then((list) => (setItems(list), setError(null)), setError)
  useEffect(() => {
    void reload()
  }, deps)
  return { items, error, setError, reload }
}

/** Runs a change; then says so and reloads, or shows the server's refusal where the screen shows errors. */
export function useChange(on: { toast: (message: string) => void; reload: () => Promise<unknown>; setError: (e: unknown) => void }) {
  return async (what: () => Promise<unknown>, done: string) => {
    try {
      await what()
      on.setError(null)
      on.toast(done)
      await on.reload()
    } catch (e) {
      on.setError(e)
    }
  }
}

export interface ListTableProps<T> {
  /** The table's accessible name. */
  label: string
  /** The spinner's label while the list loads. */
  loading: string
  /** The list; null while it loads. */
  items: T[] | null
  /** A refusal to load: no spinner then (the screen shows the error). */
  error?: unknown
  /** What stands in for an empty list. */
  empty: ReactNode | string
  /** The column headers, without the actions column. */
  columns: string[]
  /** The actions column's header for screen readers; none: no actions column. */
  actions?: string
  row: (item: T) => ReactNode
}

export function ListTable<T>({ label, loading, items, error, empty, columns, actions, row }: ListTableProps<T>) {
  if (!items) return error ? null : <Spinner label={loading} />
  if (items.length === 0) return typeof empty === 'string' ? <EmptyState title={empty} /> : <>{empty}</>
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">{actions}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{items.map(row)}</tbody>
      </table>
    </div>
  )
}
