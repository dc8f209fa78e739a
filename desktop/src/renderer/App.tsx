// The shell: navigation, the signed-in user, and the screen for the current route.
import { useState } from 'react'
import { useApp } from './app-context.tsx'
import { href, useRoute, type Route } from './router.ts'
import { EnvironmentList } from './screens/EnvironmentList.tsx'
import { EnvironmentDetail } from './screens/EnvironmentDetail.tsx'
import { EnvironmentHistory } from './screens/EnvironmentHistory.tsx'
import { Wizard } from './screens/wizard/Wizard.tsx'
import { Credentials } from './screens/Credentials.tsx'
import { Preferences } from './screens/Preferences.tsx'
import { Users } from './screens/Users.tsx'
import { Teams } from './screens/Teams.tsx'
import { Approvals } from './screens/Approvals.tsx'
import { ConfirmDialog, EmptyState, PageHead } from './components/ui.tsx'

function screen(route: Route) {
  switch (route.name) {
    case 'environments':
      return <EnvironmentList />
    case 'environment':
      return <EnvironmentDetail key={route.id} id={route.id} />
    case 'environment-history':
      return <EnvironmentHistory key={route.id} id={route.id} />
    case 'new-environment':
      return <Wizard key="new" id={null} />
    case 'edit-environment':
      return <Wizard key={route.id} id={route.id} />
    case 'credentials':
      return <Credentials />
    case 'preferences':
      return <Preferences />
    case 'users':
      return <Users />
    case 'teams':
      return <Teams />
    case 'approvals':
      return <Approvals />
    case 'not-found':
      return <NotFound path={route.path} />
  }
}

const SECTIONS = [
  { label: 'Environments', href: href.environments(), active: (r: Route) => r.name.includes('environment') },
  { label: 'Cloud credentials', href: href.credentials(), active: (r: Route) => r.name === 'credentials' },
  { label: 'Teams', href: href.teams(), active: (r: Route) => r.name === 'teams' },
  { label: 'Approvals', href: href.approvals(), active: (r: Route) => r.name === 'approvals' },
  { label: 'Preferences', href: href.preferences(), active: (r: Route) => r.name === 'preferences' },
]

const USERS_SECTION = { label: 'Users', href: href.users(), active: (r: Route) => r.name === 'users' }

export function App() {
  const route = useRoute()
  const { username, logout, admin } = useApp()
  const [signingOut, setSigningOut] = useState(false)
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            IES
          </span>
          <span>
            IES
            <small>Infrastructure environments</small>
          </span>
        </div>
        {[...SECTIONS, ...(admin ? [USERS_SECTION] : [])].map((s) => (
          <a key={s.label} className="nav-link" href={s.href} aria-current={s.active(route) ? 'page' : undefined}>
            {s.label}
          </a>
        ))}
        <div className="sidebar-foot">
          <span>
            Signed in as <strong data-testid="username">{username}</strong>
          </span>
          <button type="button" className="btn small" onClick={() => setSigningOut(true)}>
            Sign out
          </button>
        </div>
      </nav>
      <main className="main" id="main" tabIndex={-1}>
        {screen(route)}
      </main>
      {signingOut && <SignOutDialog onCancel={() => setSigningOut(false)} onConfirm={(clearDrafts) => logout({ clearDrafts })} />}
    </div>
  )
}

/** Sign-out asks what to forget on this device: the user's wizard drafts (they hold no secret, but may describe infrastructure). */
function SignOutDialog(p: { onCancel: () => void; onConfirm: (clearDrafts: boolean) => void }) {
  const [clearDrafts, setClearDrafts] = useState(false)
  return (
    <ConfirmDialog title="Sign out?" confirmLabel="Sign out" onConfirm={() => p.onConfirm(clearDrafts)} onCancel={p.onCancel}>
      <p>Your session ends on this device. Wizard drafts are kept for you only; nobody else signing in here sees them.</p>
      <label className="choice">
        <input type="checkbox" checked={clearDrafts} onChange={(e) => setClearDrafts(e.target.checked)} />
        <span>Also delete my unsaved wizard drafts from this browser</span>
      </label>
    </ConfirmDialog>
  )
}

/** An address the app does not know: say so, and offer the way back. */
function NotFound({ path }: { path: string }) {
  return (
    <>
      <PageHead title="Page not found" />
      <div className="card" data-testid="not-found">
        <EmptyState
          title={`Nothing lives at ${path}`}
          action={
            <a className="btn primary" href={href.environments()}>
              Go to your environments
            </a>
          }
        >
          The link may be old or mistyped.
        </EmptyState>
      </div>
    </>
  )
}
