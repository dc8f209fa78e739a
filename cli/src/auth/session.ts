// The command line's token source for the API client, from one of two sources:
// - client credentials from the environment (IES_CLIENT_ID / IES_CLIENT_SECRET): pipelines; nothing on disk;
// - the refresh token `ies login` stored (device flow) in the config directory, mode 0600.
// Renewal, sharing and expiry are the API contract's TokenSession (api/src/token-session.ts); this
// file gives it the CLI's storage and turns a missing or refused login into the CLI's messages.
import { memoryTokenStore, OAuthError, TokenSession, type TokenSource, type TokenStore } from '@ies/api'
import type { Settings } from '../settings.ts'
import { readCredentials, saveCredentials, type StoredLogin } from './store.ts'

/** Why there is no token: the command exits 5 with this message. */
export class NotLoggedInError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'NotLoggedInError'
  }
}

export function clientCredentialsFromEnv(env: NodeJS.ProcessEnv = process.env): { clientId: string; clientSecret: string } | undefined {
  const clientId = env.IES_CLIENT_ID
  const clientSecret = env.IES_CLIENT_SECRET
  if (!clientId && !clientSecret) return undefined
  if (!clientId || !clientSecret) throw new NotLoggedInError('Set both IES_CLIENT_ID and IES_CLIENT_SECRET for client credentials')
  return { clientId, clientSecret }
}

function loginError(err: unknown, what: string): Error {
  if (err instanceof OAuthError) {
    if (err.status === 0 || err.status >= 500) return new Error(`${what} failed at the identity provider: ${err.message}`)
    return new NotLoggedInError(`${what} was refused by the identity provider (${err.error}); run \`ies login\` again`)
  }
  return new Error(`${what} failed: the identity provider could not be reached (${(err as Error).message})`)
}

/**
 * The stored login as a token store: only the refresh token is on disk (the access token lives in
 * memory for one command), and a rotated refresh token replaces the stored one. A refused login is
 * left for `ies login` to replace or `ies logout` to remove.
 */
function storedLoginStore(settings: Settings, login: StoredLogin): TokenStore {
  let refreshToken = login.refreshToken
  return {
    load: () => ({ accessToken: '', refreshToken, idToken: null, expiresAt: 0, refreshExpiresAt: null }),
    save: (tokens) => {
      if (!tokens.refreshToken || tokens.refreshToken === refreshToken) return
      refreshToken = tokens.refreshToken
      saveCredentials(settings.configDir, settings.server, { ...login, refreshToken })
    },
    clear: () => {},
  }
}

export class Session implements TokenSource {
  private tokens: { session: TokenSession; what: string } | undefined

  constructor(
    private readonly settings: Settings,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Where the tokens come from, for messages. */
  describe(): string {
    const cc = clientCredentialsFromEnv(this.env)
    if (cc) return `client credentials of ${cc.clientId} (from the environment)`
    const login = readCredentials(this.settings.configDir, this.settings.server)
    return login ? `the login stored for ${this.settings.server}` : 'no login'
  }

  private source(): { session: TokenSession; what: string } {
    if (this.tokens) return this.tokens
    const { settings } = this
    const cc = clientCredentialsFromEnv(this.env)
    if (cc) {
      const config = { authUrl: settings.authUrl, realm: settings.realm, ...cc }
      const session = new TokenSession({ config, store: memoryTokenStore(), grant: 'client_credentials' })
      return (this.tokens = { session, what: `Signing in as ${cc.clientId}` })
    }
    const login = readCredentials(settings.configDir, settings.server)
    if (!login)
      throw new NotLoggedInError(`Not logged in to ${settings.server}: run \`ies login\`, or set IES_CLIENT_ID and IES_CLIENT_SECRET`)
    const config = { authUrl: login.authUrl, realm: login.realm, clientId: login.clientId }
    return (this.tokens = { session: new TokenSession({ config, store: storedLoginStore(settings, login) }), what: 'Renewing the login' })
  }

  async getToken(): Promise<string> {
    const { session, what } = this.source()
    const token = await session.accessToken().catch((err: unknown) => {
      throw loginError(err, what)
    })
    if (!token) throw loginError(session.refusal ?? new Error('no token was given'), what)
    return token
  }

  /** Gets a new access token; true when one was obtained. */
  async renew(): Promise<boolean> {
    const { session, what } = this.source()
    const tokens = await session.refresh().catch((err: unknown) => {
      throw loginError(err, what)
    })
    if (!tokens) throw loginError(session.refusal ?? new Error('no token was given'), what)
    return true
  }
}
