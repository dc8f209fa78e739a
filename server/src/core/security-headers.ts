// The security headers of every API and web UI response, set by @fastify/helmet (the maintained
// Fastify binding of helmet) instead of headers written by hand: Content-Security-Policy,
// X-Content-Type-Options nosniff, a strict Referrer-Policy, frame-ancestors 'none' (and
// X-Frame-Options DENY for older browsers), Strict-Transport-Security, Cross-Origin-Opener-Policy and
// -Resource-Policy, and no X-Powered-By. The API answers JSON only, so its policy allows nothing at
// all; the web UI's allows scripts and styles from this server only (no inline script: the runtime
// environment is the file /env.js), fetches to the API and the identity provider.
// The embedded identity provider's pages (/realms, development only) keep their own headers.
// The API applies helmet's headers as a constant set (helmetHeaderSet): @fastify/helmet builds
// helmet's middlewares again on every request, which cost a tenth of the cheapest API request.
import Fastify from 'fastify'
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet'
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

/**
 * The environment diagram's renderer frame (`/diagram.html`, desktop/src/renderer/diagram-frame.ts):
 * the mermaid library measures its labels with a <style> element and style attributes, so this page
 * alone allows inline styles; it loads scripts from this server only (no eval), fetches nothing,
 * submits nothing, and only the web UI itself may frame it.
 */
export const DIAGRAM_FRAME_DIRECTIVES: Directives = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'self'"],
}

/** A directive set as a Content-Security-Policy header value. */
export function policyText(directives: Directives): string {
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ')
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

/**
 * The headers @fastify/helmet sets with these options, as names (lower case) and values: helmet's own
 * code run once on a probe request at start. Its per-request work (building every middleware from the
 * options again, two hooks, the headers set on the raw response) then becomes one `reply.headers()`.
 * Only for options whose headers are the same on every request: CSP nonces are refused. helmet also
 * removes X-Powered-By, which nothing in IES sets.
 */
export async function helmetHeaderSet(options: FastifyHelmetOptions): Promise<Readonly<Record<string, string>>> {
  if (options.enableCSPNonces) throw new Error('helmetHeaderSet: CSP nonces change on every request')
  const probe = Fastify({ logger: false })
  let headers: Record<string, string> = {}
  await probe.register(helmet, options)
  probe.get('/', (_request, reply) => {
    const raw = reply.raw.getHeaders()
    headers = Object.fromEntries(
      Object.entries(raw).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
    )
    reply.send()
  })
  try {
    const res = await probe.inject('/')
    if (res.statusCode !== 200 || !headers['content-security-policy'])
      throw new Error(`helmetHeaderSet: the probe answered ${res.statusCode}`)
  } finally {
    await probe.close()
  }
  return Object.freeze(headers)
}
