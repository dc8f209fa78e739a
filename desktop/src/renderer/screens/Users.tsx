// Users: for admins, every user the server knows, oldest first, paginated
// (`GET /api/users`). Offered in the navigation only to a token with an admin role; the server
// decides (a 403 is shown as such).
import { useApp } from '../app-context.tsx'
import { Pager, usePagedList } from '../components/Pager.tsx'
import type { User } from '../lib/api/types.ts'
import { EmptyState, ErrorNotice, PageHead, PROVIDER_LABELS, Spinner, formatDate } from '../components/ui.tsx'

const PAGE_SIZE = 20

export function Users() {
  const { api } = useApp()
  const { result, error, goTo } = usePagedList<{ page: number; limit: number }, User>(api.listUsers, { page: 1, limit: PAGE_SIZE })
  return (
    <>
      <PageHead
        title="Users"
        subtitle="Everyone who has signed in to this IES, oldest first. Accounts themselves live in the identity provider."
      />
      <div className="card">
        <ErrorNotice error={error} what="Loading users" />
        {!result && !error && <Spinner label="Loading users" />}
        {result && result.data.length === 0 && <EmptyState title="No users yet" />}
        {result && result.data.length > 0 && (
          <div className="table-wrap">
            <table className="table" aria-label="Users">
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Email</th>
                  <th scope="col">Default provider</th>
                  <th scope="col">First sign-in</th>
                </tr>
              </thead>
              <tbody>
                {result.data.map((u) => (
                  <tr key={u.id} data-user={u.username}>
                    <td>
                      <strong>{u.username}</strong>
                    </td>
                    <td>{u.email}</td>
                    <td>{PROVIDER_LABELS[u.preferences?.defaultProvider] ?? u.preferences?.defaultProvider ?? '—'}</td>
                    <td>{formatDate(u.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager pagination={result?.pagination} noun="user" onPage={goTo} />
      </div>
    </>
  )
}
