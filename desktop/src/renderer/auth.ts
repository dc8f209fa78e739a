// Login for the renderer. In a browser: PKCE by redirect to the identity provider and back to this
// page, tokens in sessionStorage (gone with the tab). In Electron: the main process does the
// loopback login and keeps the refresh token with safeStorage; the renderer asks it for tokens
// through the preload bridge (window.ies).
import {
  beginLogin,
  jwtClaims as claimsOf,
  completeLogin,
  TokenSession,
  type OAuthClient as OidcClientConfig,
  type PendingLogin,
  type TokenSet,
} from '@ies/api'
import type { DesktopBridge } from '../shared/bridge.ts'

export interface Auth {
  /** Resume a session (or finish a login redirect); true when signed in. */
  restore(): Promise<boolean>
  login(): Promise<void>
  logout(): Promise<void>
  accessToken(): Promise<string | null>
  claims(): Record<string, unknown>
}

const TOKENS_KEY = 'ies.tokens'
const PENDING_KEY = 'ies.pendingLogin'

function sessionStore() {
  return {
    load: (): TokenSet | null => {
      try {
        return JSON.parse(sessionStorage.getItem(TOKENS_KEY) ?? 'null')
      } catch {
        return null
      }
    },
    save: (t: TokenSet) => sessionStorage.setItem(TOKENS_KEY, JSON.stringify(t)),
    clear: () => sessionStorage.removeItem(TOKENS_KEY),
  }
}

export function browserAuth(config: OidcClientConfig, onExpired: () => void): Auth {
  const session = new TokenSession({ config, store: sessionStore(), onExpired })
  const redirectUri = `${location.origin}/`
  return {
    async restore() {
      const params = new URLSearchParams(location.search)
      if (params.has('state') && (params.has('code') || params.has('error'))) {
        const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as (PendingLogin & { returnTo: string }) | null
        sessionStorage.removeItem(PENDING_KEY)
        history.replaceState(null, '', `/${pending?.returnTo ?? ''}`)
        if (!pending) throw new Error('This sign-in response does not belong to a sign-in started here; sign in again.')
        await session.start(await completeLogin(config, `${location.origin}/?${params}`, pending))
        return true
      }
      return session.restore()
    },
    async login() {
      const { url, pending } = await beginLogin(config, redirectUri)
      sessionStorage.setItem(PENDING_KEY, JSON.stringify({ ...pending, returnTo: location.hash }))
      location.assign(url)
    },
    async logout() {
      await session.logout()
    },
    accessToken: () => session.accessToken(),
    claims: () => (session.current ? claimsOf(session.current.accessToken) : {}),
  }
}

/** In Electron the main process holds the tokens; the renderer only learns who is signed in. */
export function desktopAuth(bridge: DesktopBridge): Auth {
  let claims: Record<string, unknown> = {}
  return {
    async restore() {
      const session = await bridge.auth.session()
      claims = session?.claims ?? {}
      return session !== null
    },
    async login() {
      claims = (await bridge.auth.login()).claims
    },
    async logout() {
      await bridge.auth.logout()
      claims = {}
    },
    // API requests go through the bridge, which adds the token in the main process.
    accessToken: async () => null,
    claims: () => claims,
  }
}
