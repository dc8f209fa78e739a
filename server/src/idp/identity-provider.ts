// One embedded identity provider: options, signing keys, storage and the current oidc-provider
// instance. A key rotation builds a new instance over the same storage, so sessions survive.
import { randomBytes } from 'node:crypto'
import type Provider from 'oidc-provider'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { resolveOptions, type IdentityProviderOptions, type ResolvedOptions } from './options.ts'
import { createProvider } from './provider.ts'
import { generateSigningKey, verifyJwt, type JwtPayload, type SigningKey } from './signing-keys.ts'
import { MemoryStore } from './store.ts'

export class EmbeddedIdentityProvider {
  readonly options: ResolvedOptions
  readonly store = new MemoryStore()
  private signingKeys: SigningKey[]
  private readonly cookieKeys: string[]
  private current: Provider
  private handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>
  /** Sessions ended by logout, until their last access token has expired: sid -> epoch ms. */
  private readonly endedSessions = new Map<string, number>()
  private errorListener: ((err: Error) => void) | undefined

  constructor(opts: IdentityProviderOptions) {
    this.options = resolveOptions(opts)
    this.signingKeys = opts.signingKeys && opts.signingKeys.length > 0 ? [...opts.signingKeys] : [generateSigningKey()]
    this.cookieKeys = opts.cookieKeys && opts.cookieKeys.length > 0 ? opts.cookieKeys : [randomBytes(32).toString('base64url')]
    this.current = this.build()
    this.handler = this.current.callback()
  }

  get issuer(): string {
    return this.options.issuer
  }

  get provider(): Provider {
    return this.current
  }

  /** The signing keys, newest (signing) first. */
  get keys(): readonly SigningKey[] {
    return this.signingKeys
  }

  /** Adds a new signing key (new `kid`) that signs from now on; the old keys stay in the JWKS. */
  rotateKeys(): SigningKey {
    const key = generateSigningKey()
    this.signingKeys = [key, ...this.signingKeys]
    this.current = this.build()
    this.handler = this.current.callback()
    return key
  }

  /** Hands a raw request to oidc-provider (Koa). `req.url` must be relative to the realm path. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return this.handler(req, res)
  }

  /** Library errors, reported without request data (no secrets reach the log). */
  onError(listener: (err: Error) => void): void {
    this.errorListener = listener
    this.listen(this.current)
  }

  /** The claims of a valid access token signed here whose session was not ended by logout. */
  verifyAccessToken(token: string): JwtPayload | undefined {
    const payload = verifyJwt(token, this.signingKeys, this.options.issuer)
    if (!payload) return undefined
    const sid = typeof payload.sid === 'string' ? payload.sid : undefined
    if (sid && this.endedSessions.has(sid)) return undefined
    return payload
  }

  /** Ends a session: its grants' tokens, the session itself, and (for introspection) its access tokens. */
  async endSession(opts: { grantId?: string; sessionUid?: string }): Promise<void> {
    const provider = this.current
    if (opts.grantId) {
      const grant = await provider.Grant.find(opts.grantId)
      await grant?.destroy()
      this.store.deleteGrant(opts.grantId)
    }
    if (opts.sessionUid) {
      const session = await provider.Session.findByUid(opts.sessionUid)
      if (session) {
        for (const clientId of Object.keys(session.authorizations ?? {})) {
          const grantId = session.grantIdFor(clientId)
          if (grantId) this.store.deleteGrant(grantId)
        }
        await session.destroy()
      }
      const now = Date.now()
      for (const [sid, until] of this.endedSessions) if (until <= now) this.endedSessions.delete(sid)
      this.endedSessions.set(opts.sessionUid, now + this.options.accessTokenTtlSeconds * 1000)
    }
  }

  private build(): Provider {
    const provider = createProvider({
      options: this.options,
      keys: this.signingKeys,
      store: this.store,
      cookieKeys: this.cookieKeys,
    })
    this.listen(provider)
    return provider
  }

  private listen(provider: Provider): void {
    const listener = this.errorListener
    if (!listener) return
    provider.removeAllListeners('server_error')
    provider.on('server_error', (_ctx: unknown, err: Error) => listener(err))
  }
}

export function createIdentityProvider(opts: IdentityProviderOptions): EmbeddedIdentityProvider {
  return new EmbeddedIdentityProvider(opts)
}
