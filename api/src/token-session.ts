// Keeps a sign-in's tokens fresh: hands out the access token and gets a new one shortly before it
// expires, on demand and on a timer, one request at a time however many callers ask. The tokens come
// from a refresh token (an interactive sign-in) or from the client's own credentials (a pipeline).
// Storage is injected: the CLI's credentials file, sessionStorage in a browser, the desktop main
// process's encrypted file, or memory.
import {
  getClientCredentialsToken,
  logout,
  OAuthError,
  refreshToken,
  tokenSetOf,
  type FlowDeps,
  type OAuthClient,
  type TokenResponse,
  type TokenSet,
} from './oauth.ts'

export interface TokenStore {
  load(): TokenSet | null | Promise<TokenSet | null>
  save(tokens: TokenSet): void | Promise<void>
  clear(): void | Promise<void>
}

export interface TokenSessionOptions extends FlowDeps {
  config: OAuthClient
  store: TokenStore
  /** Where new tokens come from: the refresh token (default), or the client's secret (`client_credentials`). */
  grant?: 'refresh_token' | 'client_credentials'
  /** Renew this long before expiry (default 60 s of the 300 s lifetime). */
  marginMs?: number
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (handle: unknown) => void
  /** Called when the session ends (the provider refused a renewal, or logout). */
  onExpired?: () => void
}

/** Tokens kept in memory only (client credentials, or no safe storage). */
export function memoryTokenStore(): TokenStore {
  let tokens: TokenSet | null = null
  return { load: () => tokens, save: (t) => void (tokens = t), clear: () => void (tokens = null) }
}

/** The provider answered and refused (a 4xx): the session is over. Anything else may pass. */
function isRefusal(err: unknown): err is OAuthError {
  return err instanceof OAuthError && err.status >= 400 && err.status < 500
}

export class TokenSession {
  private tokens: TokenSet | null = null
  private loading: Promise<void> | null = null
  private refreshing: Promise<TokenSet | null> | null = null
  private timer: unknown = null
  private readonly margin: number
  private readonly now: () => number
  /** Why the last renewal ended the session (the provider's refusal); null otherwise. */
  refusal: OAuthError | null = null

  constructor(private readonly opts: TokenSessionOptions) {
    this.margin = opts.marginMs ?? 60_000
    this.now = opts.now ?? Date.now
  }

  private get byClientCredentials(): boolean {
    return this.opts.grant === 'client_credentials'
  }

  private load(): Promise<void> {
    this.loading ??= (async () => {
      this.tokens ??= await this.opts.store.load()
    })()
    return this.loading
  }

  /**
   * Resumes the stored session, renewed first when it is about to expire; true when signed in. Never
   * throws: when the provider cannot be reached the session is kept and renewed on its next use.
   */
  async restore(): Promise<boolean> {
    await this.load()
    if (!this.tokens) return false
    if (!this.needsRefresh()) {
      this.schedule()
      return true
    }
    return this.refresh().then(
      (tokens) => tokens !== null,
      () => true,
    )
  }

  async start(tokens: TokenSet): Promise<void> {
    this.loading = Promise.resolve()
    this.tokens = tokens
    this.refusal = null
    await this.opts.store.save(tokens)
    this.schedule()
  }

  get current(): TokenSet | null {
    return this.tokens
  }

  private needsRefresh(): boolean {
    return !!this.tokens && this.now() >= this.tokens.expiresAt - this.margin
  }

  /**
   * The access token, renewed first when it is about to expire; null when there is no session (never
   * signed in, or the provider refused to renew it: `refusal` says why). Throws when the provider
   * could not be reached; the session is kept for the next attempt.
   */
  async accessToken(): Promise<string | null> {
    await this.load()
    if (!this.tokens && !this.byClientCredentials) return null
    if (!this.tokens || this.needsRefresh()) return (await this.refresh())?.accessToken ?? null
    return this.tokens.accessToken
  }

  /** New tokens now (one request for all callers); null when the session ended. */
  refresh(): Promise<TokenSet | null> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null
    })
    return this.refreshing
  }

  private async request(): Promise<TokenResponse | null> {
    const { config } = this.opts
    if (this.byClientCredentials) return getClientCredentialsToken({ ...config, clientSecret: config.clientSecret ?? '' }, this.opts)
    const token = this.tokens?.refreshToken
    if (!token || (this.tokens?.refreshExpiresAt && this.now() >= this.tokens.refreshExpiresAt)) return null
    return refreshToken({ ...config, refreshToken: token }, this.opts)
  }

  private async doRefresh(): Promise<TokenSet | null> {
    await this.load()
    let answer: TokenResponse | null
    try {
      answer = await this.request()
    } catch (err) {
      if (!isRefusal(err)) throw err
      this.refusal = err
      answer = null
    }
    if (!answer) {
      await this.end()
      return null
    }
    // A provider that does not rotate refresh tokens answers without one: the current one stays valid.
    const next = tokenSetOf(answer, this.now())
    if (!next.refreshToken && this.tokens?.refreshToken) {
      next.refreshToken = this.tokens.refreshToken
      next.refreshExpiresAt ??= this.tokens.refreshExpiresAt
    }
    await this.start(next)
    return next
  }

  private schedule(): void {
    this.cancelTimer()
    if (!this.tokens) return
    const wait = Math.max(0, this.tokens.expiresAt - this.margin - this.now())
    // A renewal the provider could not answer is retried by the next caller of accessToken().
    this.timer = (this.opts.setTimer ?? setTimeout)(() => void this.refresh().catch(() => {}), wait)
    ;(this.timer as { unref?: () => void } | null)?.unref?.()
  }

  private cancelTimer(): void {
    if (this.timer !== null) (this.opts.clearTimer ?? clearTimeout)(this.timer as never)
    this.timer = null
  }

  private async end(): Promise<void> {
    this.cancelTimer()
    this.tokens = null
    await this.opts.store.clear()
    this.opts.onExpired?.()
  }

  /** Logs out at the provider (ends its session; a failure there is not fatal) and forgets the tokens. */
  async logout(): Promise<void> {
    const token = this.tokens?.refreshToken
    if (token) await logout({ ...this.opts.config, refreshToken: token }, this.opts).catch(() => {})
    await this.end()
  }
}
