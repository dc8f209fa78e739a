// Access tokens for the command line, from one of two sources:
// - client credentials from the environment (IES_CLIENT_ID / IES_CLIENT_SECRET): pipelines; nothing on disk;
// - the refresh token `ies login` stored (device flow) in the config directory, mode 0600.
// The OAuth requests themselves are oauth.ts's, which
// speak to Keycloak and to the embedded provider alike.
import { getClientCredentialsToken, OAuthError, refreshToken, type TokenResponse } from './oauth.ts'
import type { TokenSource } from '../client/index.ts'
import type { Settings } from '../settings.ts'
import { readCredentials, saveCredentials, type StoredLogin } from './store.ts'

/** Why there is no token: the command exits 5 with this message. */
export class NotLoggedInError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'NotLoggedInError'
  }
}

interface Current {
  accessToken: string
  /** Epoch ms after which the token is renewed before use. */
  renewAfter: number
}

/** Renew this long before the access token's expiry (clock skew, the request's own time). */
const EXPIRY_MARGIN_MS = 30_000

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

export class Session implements TokenSource {
  private current: Current | undefined

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

  async getToken(): Promise<string> {
    if (!this.current || Date.now() >= this.current.renewAfter) await this.renew()
    return this.current!.accessToken
  }

  /** Gets a new access token; true when one was obtained. */
  async renew(): Promise<boolean> {
    const { settings } = this
    const address = { authUrl: settings.authUrl, realm: settings.realm }
    const cc = clientCredentialsFromEnv(this.env)
    let tokens: TokenResponse
    if (cc) {
      try {
        tokens = await getClientCredentialsToken({ ...address, ...cc })
      } catch (err) {
        throw loginError(err, `Signing in as ${cc.clientId}`)
      }
    } else {
      const login = readCredentials(settings.configDir, settings.server)
      if (!login)
        throw new NotLoggedInError(`Not logged in to ${settings.server}: run \`ies login\`, or set IES_CLIENT_ID and IES_CLIENT_SECRET`)
      try {
        tokens = await refreshToken({
          authUrl: login.authUrl,
          realm: login.realm,
          clientId: login.clientId,
          refreshToken: login.refreshToken,
        })
      } catch (err) {
        throw loginError(err, 'Renewing the login')
      }
      // Providers may rotate refresh tokens: keep the newest.
      if (tokens.refresh_token && tokens.refresh_token !== login.refreshToken) {
        saveCredentials(settings.configDir, settings.server, { ...login, refreshToken: tokens.refresh_token } satisfies StoredLogin)
      }
    }
    const lifetime = Math.max(0, (tokens.expires_in ?? 60) * 1000 - EXPIRY_MARGIN_MS)
    this.current = { accessToken: tokens.access_token, renewAfter: Date.now() + lifetime }
    return true
  }
}
