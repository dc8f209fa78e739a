// The tabs of an environment's page: its overview and its history of changes (each its own route,
// so a tab can be linked to and survives a reload).
import { href } from '../router.ts'
import type { Environment } from '../lib/api/types.ts'
import { Badge, PROVIDER_LABELS, formatDate } from './ui.tsx'

const TABS = [
  { key: 'overview', label: 'Overview', to: href.environment },
  { key: 'history', label: 'History', to: href.environmentHistory },
] as const

/** The line under the environment's name on each tab: provider, status, last update. */
export function EnvironmentSubtitle({ env }: { env: Environment }) {
  return (
    <>
      <Badge kind={env.provider}>{PROVIDER_LABELS[env.provider] ?? env.provider}</Badge> <Badge kind={env.status}>{env.status}</Badge>{' '}
      <span className="muted">Updated {formatDate(env.updatedAt)}</span>{' '}
      <span className="muted" data-testid="env-access">
        {env.team ? `Team ${env.team}` : 'Personal'} · your role: {env.role ?? 'owner'}
      </span>
    </>
  )
}

export function EnvironmentTabs({ id, current }: { id: string; current: (typeof TABS)[number]['key'] }) {
  return (
    <nav className="tabs" aria-label="Environment">
      {TABS.map((tab) => (
        <a key={tab.key} className="tab" href={tab.to(id)} aria-current={tab.key === current ? 'page' : undefined}>
          {tab.label}
        </a>
      ))}
    </nav>
  )
}
