// Signed out: one button that starts the PKCE login (a redirect in the browser, the system browser
// from the desktop app).
import { useState } from 'react'
import { Notice, Spinner } from '../components/ui.tsx'

export function Login(p: { onLogin: () => Promise<void>; error?: string | null; ended?: string | null; desktop: boolean }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(p.error ?? null)
  async function go() {
    setBusy(true)
    setError(null)
    try {
      await p.onLogin()
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
      setBusy(false)
    }
  }
  return (
    <main className="login">
      <div className="card">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            IES
          </span>
          <span>Infrastructure Environment Service</span>
        </div>
        <p className="muted">
          Design environments from the service catalog, generate their infrastructure code and push it to your repository.
        </p>
        {p.ended && !error && (
          <Notice kind="warn" title="Your session ended" testId="session-ended">
            {p.ended} Sign in again to continue where you were.
          </Notice>
        )}
        {error && (
          <Notice kind="error" title="Sign-in failed">
            {error}
          </Notice>
        )}
        <button type="button" className="btn primary" onClick={go} disabled={busy} autoFocus>
          {busy && <Spinner />} Sign in
        </button>
        {p.desktop && <p className="muted small">Your browser opens to sign in; come back here afterwards.</p>}
      </div>
    </main>
  )
}
