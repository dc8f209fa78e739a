// Bearer tokens already verified, with what they proved, so that a client repeating its token on
// every request costs one map lookup instead of decoding, hashing and checking it again. An entry
// lives until the token expires and at most `ttlMs` (so a key the provider retires stops being
// honoured within that window); failures are never stored. Bounded: when full, the oldest entry goes.
export interface VerifiedTokensOptions {
  max: number
  ttlMs: number
  now?: () => number
}

export class VerifiedTokens<T> {
  private readonly entries = new Map<string, { value: T; until: number }>()
  private readonly now: () => number

  constructor(private readonly opts: VerifiedTokensOptions) {
    this.now = opts.now ?? Date.now
  }

  get(token: string): T | undefined {
    const entry = this.entries.get(token)
    if (!entry) return undefined
    if (entry.until <= this.now()) {
      this.entries.delete(token)
      return undefined
    }
    return entry.value
  }

  /** `expiresAt`: the token's `exp` claim, in seconds since the epoch. */
  set(token: string, value: T, expiresAt: number) {
    const until = Math.min(expiresAt * 1000, this.now() + this.opts.ttlMs)
    if (!(until > this.now())) return
    if (this.entries.size >= this.opts.max) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(token, { value, until })
  }

  get size() {
    return this.entries.size
  }
}
