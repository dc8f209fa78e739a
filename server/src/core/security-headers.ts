// The security headers of every API and web UI response, set by @fastify/helmet (the maintained
// Fastify binding of helmet) instead of headers written by hand: Content-Security-Policy,
// X-Content-Type-Options nosniff, a strict Referrer-Policy, frame-ancestors 'none' (and
// X-Frame-Options DENY for older browsers), Strict-Transport-Security, Cross-Origin-Opener-Policy and
// -Resource-Policy, and no X-Powered-By. The API answers JSON only, so its policy allows nothing at
// all; the web UI's allows scripts and styles from this server only (no inline script: the runtime
// environment is the file /env.js), fetches to the API and the identity provider.
// The embedded identity provider's pages (/realms, development only) keep their own headers.
import type { FastifyHelmetOptions } from '@fastify/helmet'
import { authBaseUrl, type Config } from '../config.ts'

type Directives = Record<string, string[]>

/** JSON answers: nothing may be loaded, framed or run from them. */
export const API_DIRECTIVES: Directives = {
  'default-src': ["'none'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
}

const origin = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return ''
  }
}

/** The web UI: scripts and styles only from this server; the API and the identity provider for fetches and the login form. */
export function webUiDirectives(config: Config): Directives {
  const idp = origin(authBaseUrl(config))
  const connect = [...new Set(["'self'", origin(`${config.publicUrl}/api`), idp].filter(Boolean))]
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:'],
    'connect-src': connect,
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'self'", ...(idp ? [idp] : [])],
  }
}

/** helmet's options with the given Content-Security-Policy (only the directives named: no defaults mixed in). */
export function securityHeaders(directives: Directives): FastifyHelmetOptions {
  return {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
    // Cross-origin requests of the desktop app are CORS fetches, which CORP does not govern.
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
  }
}
