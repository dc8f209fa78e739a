// The identity provider's signing keys, by key id, for the token check. get-jwks fetches the JWKS
// and caches each key it finds; this guard decides when a key id it does not hold may cost a fetch,
// so that a flood of tokens with random `kid`s cannot turn the service against its provider:
// - a kid that the provider has served before always goes to get-jwks (its cache, refreshed after
//   its ttl), so key rotation and cache expiry keep working;
// - a kid never seen may make get-jwks fetch the key set at most once per `refetchIntervalMs`
//   (the first fetch of a cold cache is free: it is not a refetch); within the interval it is refused
//   without a fetch;
// - a kid the provider's key set did not hold is remembered for `refetchIntervalMs` and refused
//   without a fetch meanwhile.
import buildGetJwks from 'get-jwks'

export interface SigningKeysOptions {
  /** The only issuer whose keys are fetched (Keycloak's realm URL). */
  issuer: string
  jwksPath: string
  refetchIntervalMs: number
  /** How long get-jwks keeps a key before fetching it again. */
  ttlMs?: number
  now?: () => number
}

export class UnknownKeyError extends Error {
  constructor(readonly fetched: boolean) {
    super('the identity provider does not serve this signing key')
  }
}

/** At most this many unknown kids remembered (the oldest forgotten first). */
const MAX_UNKNOWN = 10_000

export class SigningKeys {
  private readonly jwks: ReturnType<typeof buildGetJwks>
  private readonly known = new Set<string>()
  private readonly unknown = new Map<string, number>()
  private lastRefetch = -Infinity
  private fetchedOnce = false
  private readonly now: () => number

  constructor(private readonly opts: SigningKeysOptions) {
    this.now = opts.now ?? Date.now
    this.jwks = buildGetJwks({ issuersWhitelist: [opts.issuer], jwksPath: opts.jwksPath, max: 50, ttl: opts.ttlMs ?? 10 * 60 * 1000 })
  }

  /** The JWK for `kid` and `alg`, or UnknownKeyError. Other failures (the provider unreachable) are thrown as they come. */
  async get(kid: string, alg: string): Promise<unknown> {
    const now = this.now()
    const cached = this.jwks.cache.get(this.jwks.generateCacheKey(alg, kid, this.domain)) !== undefined
    if (!cached && !this.known.has(kid)) {
      const until = this.unknown.get(kid)
      if (until !== undefined && until > now) throw new UnknownKeyError(false)
      if (this.fetchedOnce && now - this.lastRefetch < this.opts.refetchIntervalMs) {
        this.remember(kid, now)
        throw new UnknownKeyError(false)
      }
      if (this.fetchedOnce) this.lastRefetch = now
    }
    try {
      const jwk = await this.jwks.getJwk({ kid, alg, domain: this.opts.issuer })
      this.fetchedOnce = true
      this.known.add(kid)
      this.unknown.delete(kid)
      return jwk
    } catch (err) {
      if ((err as { code?: string }).code === 'JWK_NOT_FOUND') {
        this.fetchedOnce = true
        this.remember(kid, this.now())
        throw new UnknownKeyError(true)
      }
      throw err
    }
  }

  private get domain() {
    return this.opts.issuer.endsWith('/') ? this.opts.issuer : `${this.opts.issuer}/`
  }

  private remember(kid: string, now: number) {
    if (this.unknown.size >= MAX_UNKNOWN) this.unknown.delete(this.unknown.keys().next().value!)
    this.unknown.set(kid, now + this.opts.refetchIntervalMs)
  }
}
