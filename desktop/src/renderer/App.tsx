// The shell: navigation, the signed-in user, and the screen for the current route.
import { useApp } from './app-context.tsx'
import { href, useRoute, type Route } from './router.ts'
import { EnvironmentList } from './screens/EnvironmentList.tsx'
import { EnvironmentDetail } from './screens/EnvironmentDetail.tsx'
import { Wizard } from './screens/Wizard.tsx'
import { Credentials } from './screens/Credentials.tsx'
import { Preferences } from './screens/Preferences.tsx'

function screen(route: Route) {
  switch (route.name) {
    case 'environments':
      return <EnvironmentList />
    case 'environment':
      return <EnvironmentDetail key={route.id} id={route.id} />
    case 'new-environment':
      return <Wizard key="new" id={null} />
    case 'edit-environment':
      return <Wizard key={route.id} id={route.id} />
    case 'credentials':
      return <Credentials />
    case 'preferences':
      return <Preferences />
  }
}

const SECTIONS = [
  { label: 'Environments', href: href.environments(), active: (r: Route) => r.name.includes('environment') },
  { label: 'Cloud credentials', href: href.credentials(), active: (r: Route) => r.name === 'credentials' },
  { label: 'Preferences', href: href.preferences(), active: (r: Route) => r.name === 'preferences' },
]

export function App() {
  const route = useRoute()
  const { username, logout } = useApp()
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
        {SECTIONS.map((s) => (
          <a key={s.label} className="nav-link" href={s.href} aria-current={s.active(route) ? 'page' : undefined}>
            {s.label}
          </a>
        ))}
        <div className="sidebar-foot">
          <span>
            Signed in as <strong data-testid="username">{username}</strong>
          </span>
          <button type="button" className="btn small" onClick={logout}>
            Sign out
          </button>
        </div>
      </nav>
      <main className="main" id="main" tabIndex={-1}>
        {screen(route)}
      </main>
    </div>
  )
}
