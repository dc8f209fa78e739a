// Two limits on every /api request (docs/api.md, "Rate limits"): per client IP (checked before
// authentication) and per user (after it). Counters live in memory, or in Redis when REDIS_URL is
// set so that replicas share them. The headers report whichever limit has fewer requests left.
import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError, OPEN_CODES } from './errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    limitByIp: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    limitByUser: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
}

export interface RateLimitOptions {
  ipMax: number
  ipWindowMs: number
  userMax: number
  userWindowMs: number
  /** An ioredis client shared by replicas; in-memory counters without it. */
  redis?: unknown
}

interface Outcome {
  max: number
  remaining: number
  ttl: number
  isExceeded: boolean
}

const REMAINING = Symbol('rateLimitRemaining')

function report(request: FastifyRequest, reply: FastifyReply, outcome: Outcome) {
  const marked = request as FastifyRequest & { [REMAINING]?: number }
  const shown = marked[REMAINING]
  // The first limit writes the headers; a later one rewrites them only if it has fewer left.
  if (shown === undefined || outcome.remaining < shown || outcome.isExceeded) {
    marked[REMAINING] = outcome.remaining
    reply.header('X-RateLimit-Limit', outcome.max)
    reply.header('X-RateLimit-Remaining', outcome.remaining)
    reply.header('X-RateLimit-Reset', Math.ceil((Date.now() + outcome.ttl) / 1000))
  }
  if (outcome.isExceeded) {
    const seconds = Math.max(1, Math.ceil(outcome.ttl / 1000))
    reply.header('Retry-After', seconds)
    throw new AppError(429, OPEN_CODES.rateLimited, `Rate limit exceeded, retry in ${seconds} seconds`)
  }
}

export default fp<RateLimitOptions>(
  async (app, opts) => {
    await app.register(rateLimit, {
      global: false,
      redis: opts.redis,
      nameSpace: 'ies-rate-limit-',
      // A Redis outage must not take the API down with it.
      skipOnError: true,
    })
    // The plugin's own key for the client address: IPv4-mapped IPv6 as IPv4, and an IPv6 client
    // counted by its /64 network (one host holds a whole /64, so rotating addresses in it is free).
    const byIp = app.createRateLimit({ max: opts.ipMax, timeWindow: opts.ipWindowMs })
    const byUser = app.createRateLimit({
      max: opts.userMax,
      timeWindow: opts.userWindowMs,
      keyGenerator: (request) => `user:${request.principal.sub}`,
    })
    const limitBy = (limiter: typeof byIp) => (request: FastifyRequest, reply: FastifyReply) =>
      limiter(request).then((outcome) => {
        if (!outcome.isAllowed) report(request, reply, outcome as Outcome)
      })
    app.decorate('limitByIp', limitBy(byIp))
    app.decorate('limitByUser', limitBy(byUser))
  },
  { name: 'rate-limit' },
)
