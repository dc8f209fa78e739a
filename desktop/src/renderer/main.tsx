// Start-up: read env.js, restore or finish the login, then render the app.
import { StrictMode, useEffect, useMemo, useRef, useState } from 'react'
import { createRoot } from 'react-dom/client'
import './styles.css'
import { ENV_GLOBAL } from '@ies/api/env-script'
import { readClientEnv } from '../shared/env.ts'
import { createApiClient } from '@ies/api'
import { browserAuth, desktopAuth, type Auth } from './auth.ts'
import { bridgeFetch } from '../shared/bridge.ts'
import { App } from './App.tsx'
import { AppProvider, applyTheme } from './app-context.tsx'
import { Login } from './screens/Login.tsx'
import { RateLimitBanner, Spinner } from './components/ui.tsx'
import { clearDrafts, removeUnownedDrafts } from './lib/wizard/draft.ts'
import { isAdmin } from './lib/session/roles.ts'

const env = readClientEnv(
  (window as unknown as Record<string, unknown>)[ENV_GLOBAL],
  location.origin.startsWith('http') ? location.origin : 'http://127.0.0.1:3000',
)
applyTheme('system')
// Drafts saved before they were per user cannot be given to anyone (and may hold a deploy key).
removeUnownedDrafts(localStorage)

function Root() {
  const [state, setState] = useState<'starting' | 'signed-out' | 'signed-in'>('starting')
  const [error, setError] = useState<string | null>(null)
  const [limitedUntil, setLimitedUntil] = useState<Date | null>(null)
  // Why a signed-in session ended without the user signing out (shown on the sign-in screen).
  const [ended, setEnded] = useState<string | null>(null)
  const signingOut = useRef(false)
  const endSession = (why: string) => {
    if (!signingOut.current) setEnded(why)
    setState('signed-out')
  }
  const auth: Auth = useMemo(
    () =>
      window.ies
        ? desktopAuth(window.ies)
        : browserAuth({ authUrl: env.authUrl, realm: env.realm, clientId: env.clientId }, () =>
            endSession('It could not be renewed: the identity provider refused the refresh or could not be reached.'),
          ),
    [],
  )
  const api = useMemo(
    () =>
      createApiClient({
        baseUrl: env.apiUrl,
        auth: { getToken: () => auth.accessToken() },
        onUnauthorized: () => endSession('The server no longer accepts your sign-in (it expired or was revoked).'),
        onRateLimited: setLimitedUntil,
        ...(window.ies ? { fetch: bridgeFetch(window.ies) } : {}),
      }),
    [auth],
  )

  useEffect(() => {
    auth.restore().then(
      (ok) => setState(ok ? 'signed-in' : 'signed-out'),
      (e) => (setError(e instanceof Error ? e.message : String(e)), setState('signed-out')),
    )
  }, [auth])

  if (state === 'starting') {
    return (
      <main className="login">
        <Spinner label="Starting" />
      </main>
    )
  }
  if (state === 'signed-out') {
    return (
      <Login
        desktop={!!window.ies}
        error={error}
        ended={ended}
        onLogin={async () => {
          signingOut.current = false
          await auth.login()
          if (window.ies) setState('signed-in')
        }}
      />
    )
  }
  const claims = auth.claims()
  const username = String(claims.preferred_username ?? claims.email ?? 'you')
  const subject = String(claims.sub ?? username)
  const logout = (opts: { clearDrafts?: boolean } = {}) => {
    if (opts.clearDrafts) clearDrafts(localStorage, subject)
    signingOut.current = true
    setEnded(null)
    auth.logout().finally(() => setState('signed-out'))
  }
  return (
    <AppProvider api={api} env={env} username={username} subject={subject} admin={isAdmin(claims, env.clientId)} logout={logout}>
      <RateLimitBanner until={limitedUntil} onOver={() => setLimitedUntil(null)} />
      <App />
    </AppProvider>
  )
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
)
