// Environments: the user's own and their teams' environments with pagination, team, provider and
// status filters, and sort; each row says its team and what the user may do (their role).
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { href } from '../router.ts'
import type { EnvironmentListQuery as EnvironmentQuery, ListResult } from '@ies/api'
import { PROVIDERS, STATUSES, TIERS, type EnvironmentSummary, type Team } from '../lib/api/types.ts'
import type { EnvironmentUpgrade } from '../lib/push/lifecycle.ts'
import { UpgradeAll } from '../components/UpgradeAll.tsx'
import { Badge, EmptyState, ErrorNotice, PageHead, PROVIDER_LABELS, SelectField, Spinner, formatDate } from '../components/ui.tsx'

const SORTS = [
  { value: 'created_at:desc', label: 'Newest first' },
  { value: 'created_at:asc', label: 'Oldest first' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
]

export function EnvironmentList() {
  const { api } = useApp()
  const [query, setQuery] = useState<EnvironmentQuery>({ page: 1, limit: 10, sort: 'created_at', order: 'desc' })
  const [result, setResult] = useState<ListResult<EnvironmentSummary> | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [loading, setLoading] = useState(true)
  const [behind, setBehind] = useState<EnvironmentUpgrade[]>([])
  const [teams, setTeams] = useState<Team[]>([])
  useEffect(() => {
    api.teams().then(setTeams, () => setTeams([]))
  }, [api])

  // Which pushed environments are behind (one request per visit). A server without the lifecycle
  // routes simply shows no banner.
  const loadBehind = () => api.upgrades().then(setBehind, () => setBehind([]))
  useEffect(() => {
    loadBehind()
  }, [api])
  const behindIds = new Set(behind.map((b) => b.id))

  useEffect(() => {
    let live = true
    setLoading(true)
    api
      .listEnvironments(query)
      .then(
        (r) => live && (setResult(r), setError(null)),
        (e) => live && setError(e),
      )
      .finally(() => live && setLoading(false))
    return () => {
      live = false
    }
  }, [api, query])

  const set = (patch: Partial<EnvironmentQuery>) => setQuery((q) => ({ ...q, page: 1, ...patch }))
  const filtered = !!(query.provider || query.status || query.team || query.label)
  const p = result?.pagination

  return (
    <>
      <PageHead
        title="Environments"
        subtitle="Stored infrastructure configurations. Generate a repository from one, or push it to your Git host."
        actions={
          <a className="btn primary" href={href.newEnvironment()}>
            New environment
          </a>
        }
      />
      {behind.length > 0 && <UpgradeAll key={behind.map((b) => b.id).join()} behind={behind} onUpdated={loadBehind} />}
      <div className="card">
        <div className="toolbar" role="search" aria-label="Filter environments">
          {teams.length > 0 && (
            <SelectField
              label="Team"
              value={query.team ?? ''}
              options={[{ value: '', label: 'Mine and my teams' }, ...teams.map((t) => ({ value: t.name, label: t.name }))]}
              onChange={(v) => set({ team: v || undefined })}
            />
          )}
          <SelectField
            label="Provider"
            value={query.provider ?? ''}
            options={[{ value: '', label: 'All providers' }, ...PROVIDERS.map((v) => ({ value: v, label: PROVIDER_LABELS[v] }))]}
            onChange={(v) => set({ provider: v || undefined })}
          />
          <SelectField
            label="Tier"
            value={query.label?.replace(/^tier=/, '') ?? ''}
            options={[{ value: '', label: 'All tiers' }, ...TIERS.map((tier) => ({ value: tier, label: tier }))]}
            onChange={(v) => set({ label: v ? `tier=${v}` : undefined })}
          />
          <SelectField
            label="Status"
            value={query.status ?? ''}
            options={[{ value: '', label: 'All statuses' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
            onChange={(v) => set({ status: v || undefined })}
          />
          <SelectField
            label="Sort"
            value={`${query.sort}:${query.order}`}
            options={SORTS}
            onChange={(v) => {
              const [sort, order] = v.split(':') as [EnvironmentQuery['sort'], EnvironmentQuery['order']]
              set({ sort, order })
            }}
          />
          <div className="spacer" />
          {loading && <Spinner label="Loading environments" />}
        </div>
        <ErrorNotice error={error} what="Loading environments" />
        {result && result.data.length === 0 && !filtered && (
          <EmptyState
            title="No environments yet"
            action={
              <a className="btn primary" href={href.newEnvironment()}>
                Create your first environment
              </a>
            }
          >
            An environment holds a provider, region, domain and the services you want. The wizard builds its choices from the service
            catalog.
          </EmptyState>
        )}
        {result && result.data.length === 0 && filtered && <EmptyState title="No environment matches these filters" />}
        {result && result.data.length > 0 && (
          <div className="table-wrap">
            <table className="table" aria-label="Environments">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Team</th>
                  <th scope="col">Your role</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Region</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {result.data.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <a href={href.environment(e.id)}>{e.name}</a>
                    </td>
                    <td data-testid="env-team">{e.team ?? <span className="muted">personal</span>}</td>
                    <td data-testid="env-role">{e.role ?? '—'}</td>
                    <td>
                      <Badge kind={e.provider}>{PROVIDER_LABELS[e.provider] ?? e.provider}</Badge>
                    </td>
                    <td className="mono">{e.region}</td>
                    <td data-testid="env-tier" title={labelsText(e.labels)}>
                      {e.labels?.tier ?? <span className="muted">—</span>}
                    </td>
                    <td>
                      <Badge kind={e.status}>{e.status}</Badge>{' '}
                      {behindIds.has(e.id) && (
                        <Badge kind="behind">
                          <span title="Pushed before the latest templates or configuration changes">behind</span>
                        </Badge>
                      )}{' '}
                      {e.problems?.length ? (
                        <Badge kind="stranded">
                          <span title={`The current templates refuse: ${e.problems.map((x) => `${x.field} (${x.message})`).join('; ')}`}>
                            stranded
                          </span>
                        </Badge>
                      ) : null}
                    </td>
                    <td>{formatDate(e.createdAt)}</td>
                    <td>{formatDate(e.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {p && p.total > 0 && (
          <nav className="pager" aria-label="Pagination">
            <span>
              {p.total} environment{p.total === 1 ? '' : 's'} · page {p.page} of {Math.max(1, p.totalPages)}
            </span>
            <span className="row">
              <button
                type="button"
                className="btn small"
                disabled={p.page <= 1}
                onClick={() => setQuery((q) => ({ ...q, page: p.page - 1 }))}
              >
                Previous
              </button>
              <button
                type="button"
                className="btn small"
                disabled={p.page >= p.totalPages}
                onClick={() => setQuery((q) => ({ ...q, page: p.page + 1 }))}
              >
                Next
              </button>
            </span>
          </nav>
        )}
      </div>
    </>
  )
}

/** Every label as `key=value`, comma-separated (the list shows the tier; the rest on hover). */
function labelsText(labels: EnvironmentSummary['labels']): string | undefined {
  const pairs = Object.entries(labels ?? {}).map(([key, value]) => `${key}=${value}`)
  return pairs.length > 0 ? pairs.join(', ') : undefined
}
