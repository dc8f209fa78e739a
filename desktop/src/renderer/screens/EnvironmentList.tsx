// Environments: the user's own and their teams' environments with pagination, team, provider and
// status filters, and sort; each row says its team and what the user may do (their role).
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { href } from '../router.ts'
import type { EnvironmentListQuery as EnvironmentQuery } from '@ies/api'
import { PROVIDERS, STATUSES, TIERS, type EnvironmentSummary, type Team } from '../lib/api/types.ts'
import type { EnvironmentUpgrade } from '../lib/push/lifecycle.ts'
import { UpgradeAll } from '../components/UpgradeAll.tsx'
import { Pager, usePagedList } from '../components/Pager.tsx'
import { Badge, EmptyState, ErrorNotice, PageHead, PROVIDER_LABELS, SelectField, Spinner, formatDate } from '../components/ui.tsx'

const SORTS = [
  { value: 'created_at:desc', label: 'Newest first' },
  { value: 'created_at:asc', label: 'Oldest first' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
]

export function EnvironmentList() {
  const { api } = useApp()
  const list = usePagedList<EnvironmentQuery, EnvironmentSummary>(api.listEnvironments, {
    page: 1,
    limit: 10,
    sort: 'created_at',
    order: 'desc',
  })
  const { query, result } = list
  const [behind, setBehind] = useState<EnvironmentUpgrade[]>([])
  // Which pushed environments are behind (one request per visit). A server without the lifecycle
  // routes simply shows no banner.
  const loadBehind = () => api.upgrades().then(setBehind, () => setBehind([]))
  useEffect(() => {
    loadBehind()
  }, [api])
  const filtered = !!(query.provider || query.status || query.team || query.label)

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
        <EnvironmentFilters query={query} filter={list.filter} loading={list.loading} />
        <ErrorNotice error={list.error} what="Loading environments" />
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
        {result && result.data.length > 0 && <EnvironmentTable environments={result.data} behindIds={new Set(behind.map((b) => b.id))} />}
        <Pager pagination={result?.pagination} noun="environment" onPage={list.goTo} />
      </div>
    </>
  )
}

/** The team, provider, tier and status filters and the sort. */
function EnvironmentFilters({
  query,
  filter,
  loading,
}: {
  query: EnvironmentQuery
  filter: (patch: Partial<EnvironmentQuery>) => void
  loading: boolean
}) {
  const { api } = useApp()
  const [teams, setTeams] = useState<Team[]>([])
  useEffect(() => {
    api.teams().then(setTeams, () => setTeams([]))
  }, [api])
  return (
    <div className="toolbar" role="search" aria-label="Filter environments">
      {teams.length > 0 && (
        <SelectField
          label="Team"
          value={query.team ?? ''}
          options={[{ value: '', label: 'Mine and my teams' }, ...teams.map((t) => ({ value: t.name, label: t.name }))]}
          onChange={(v) => filter({ team: v || undefined })}
        />
      )}
      <SelectField
        label="Provider"
        value={query.provider ?? ''}
        options={[{ value: '', label: 'All providers' }, ...PROVIDERS.map((v) => ({ value: v, label: PROVIDER_LABELS[v] }))]}
        onChange={(v) => filter({ provider: v || undefined })}
      />
      <SelectField
        label="Tier"
        value={query.label?.replace(/^tier=/, '') ?? ''}
        options={[{ value: '', label: 'All tiers' }, ...TIERS.map((tier) => ({ value: tier, label: tier }))]}
        onChange={(v) => filter({ label: v ? `tier=${v}` : undefined })}
      />
      <SelectField
        label="Status"
        value={query.status ?? ''}
        options={[{ value: '', label: 'All statuses' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
        onChange={(v) => filter({ status: v || undefined })}
      />
      <SelectField
        label="Sort"
        value={`${query.sort}:${query.order}`}
        options={SORTS}
        onChange={(v) => {
          const [sort, order] = v.split(':') as [EnvironmentQuery['sort'], EnvironmentQuery['order']]
          filter({ sort, order })
        }}
      />
      <div className="spacer" />
      {loading && <Spinner label="Loading environments" />}
    </div>
  )
}

/** One row per environment: its team, the caller's role, where it runs, and whether it is behind or stranded. */
function EnvironmentTable({ environments, behindIds }: { environments: EnvironmentSummary[]; behindIds: Set<string> }) {
  return (
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
          {environments.map((e) => (
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
                <StatusBadges environment={e} behind={behindIds.has(e.id)} />
              </td>
              <td>{formatDate(e.createdAt)}</td>
              <td>{formatDate(e.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** The status, and "behind" and "stranded" when they apply. */
function StatusBadges({ environment: e, behind }: { environment: EnvironmentSummary; behind: boolean }) {
  return (
    <>
      <Badge kind={e.status}>{e.status}</Badge>{' '}
      {behind && (
        <Badge kind="behind">
          <span title="Pushed before the latest templates or configuration changes">behind</span>
        </Badge>
      )}{' '}
      {e.problems?.length ? (
        <Badge kind="stranded">
          <span title={`The current templates refuse: ${e.problems.map((x) => `${x.field} (${x.message})`).join('; ')}`}>stranded</span>
        </Badge>
      ) : null}
    </>
  )
}

/** Every label as `key=value`, comma-separated (the list shows the tier; the rest on hover). */
function labelsText(labels: EnvironmentSummary['labels']): string | undefined {
  const pairs = Object.entries(labels ?? {}).map(([key, value]) => `${key}=${value}`)
  return pairs.length > 0 ? pairs.join(', ') : undefined
}
