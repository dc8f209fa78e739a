// Keeps a token set fresh: hands out the access token and refreshes it shortly before it expires
// (access tokens live 300 s), both on demand and on a timer. Storage is pluggable: sessionStorage in
// the browser, safeStorage-encrypted refresh token in Electron's main process.
import { refreshTokens, logoutAtProvider, type FlowDeps, type OidcClientConfig, type TokenSet } from './oidc.ts'

export interface TokenStore {
  load(): TokenSet | null | Promise<TokenSet | null>
  save(tokens: TokenSet): void | Promise<void>
  clear(): void | Promise<void>
}

export interface TokenSessionOptions extends FlowDeps {
  config: OidcClientConfig
  store: TokenStore
  /** Refresh this long before expiry (default 60 s of the 300 s lifetime). */
  marginMs?: number
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (handle: unknown) => void
  /** Called when the session ends (refresh failed or logout). */
  onExpired?: () => void
}

export class TokenSession {
  private tokens: TokenSet | null = null
  private refreshing: Promise<TokenSet | null> | null = null
  private timer: unknown = null
  private readonly margin: number
  private readonly now: () => number

  constructor(private readonly opts: TokenSessionOptions) {
    this.margin = opts.marginMs ?? 60_000
    this.now = opts.now ?? Date.now
  }

  async restore(): Promise<boolean> {
    this.tokens = await this.opts.store.load()
    if (!this.tokens) return false
    if (this.needsRefresh()) return (await this.refresh()) !== null
    this.schedule()
    return true
  }

  async start(tokens: TokenSet) {
    this.tokens = tokens
    await this.opts.store.save(tokens)
    this.schedule()
  }

  get current(): TokenSet | null {
    return this.tokens
  }

  private needsRefresh() {
    return !!this.tokens && this.now() >= this.tokens.expiresAt - this.margin
  }

  /** The access token, refreshed first when it is about to expire; null when logged out. */
  async accessToken(): Promise<string | null> {
    if (!this.tokens) return null
    if (this.needsRefresh()) return (await this.refresh())?.accessToken ?? null
    return this.tokens.accessToken
  }

  refresh(): Promise<TokenSet | null> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null
    })
    return this.refreshing
  }

  private async doRefresh(): Promise<TokenSet | null> {
    const refreshToken = this.tokens?.refreshToken
    if (!refreshToken || (this.tokens?.refreshExpiresAt && this.now() >= this.tokens.refreshExpiresAt)) {
      await this.end()
      return null
    }
    try {
      const next = await refreshTokens(this.opts.config, refreshToken, this.opts)
      await this.start(next)
      return next
    } catch {
      await this.end()
      return null
    }
  }

  private schedule() {
    if (this.timer !== null) (this.opts.clearTimer ?? clearTimeout)(this.timer as never)
    if (!this.tokens) return
    const wait = Math.max(0, this.tokens.expiresAt - this.margin - this.now())
    this.timer = (this.opts.setTimer ?? setTimeout)(() => void this.refresh(), wait)
    ;(this.timer as { unref?: () => void })?.unref?.()
  }

  private async end() {
    if (this.timer !== null) (this.opts.clearTimer ?? clearTimeout)(this.timer as never)
    this.timer = null
    this.tokens = null
    await this.opts.store.clear()
    this.opts.onExpired?.()
  }

  /** Log out at the provider (ends its session) and forget the tokens. */
  async logout() {
    const refreshToken = this.tokens?.refreshToken
    if (refreshToken) await logoutAtProvider(this.opts.config, refreshToken, this.opts)
    await this.end()
  }
}
