// Pino options: request ids on every line, and redaction of everything that could carry a secret:
// credential headers and fields (REDACTED_PATHS), and in the logged request URL every
// credential-like query parameter (`access_token`, `token`, `code`, `refresh_token`,
// `client_secret`, `password`, any name with token, secret or password in it) and every JWT-shaped
// value, wherever it stands. The API never reads a token from the URL (core/auth.ts); a client that
// puts one there still must not have it written to the log.
import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-service-token"]',
  'headers.authorization',
  '*.password',
  '*.secret',
  '*.secretAccessKey',
  '*.sessionToken',
  '*.clientSecret',
  '*.serviceAccountKey',
  '*.deployKey',
  '*.privateKey',
  '*.private_key',
  '*.credentials',
  '*.token',
  '*.access_token',
  '*.refresh_token',
]

const CENSOR = '[redacted]'

/** Query parameters that carry credentials in OAuth 2.0, OpenID Connect and common APIs. */
const CREDENTIAL_PARAMETERS = new Set([
  'access_token',
  'id_token',
  'refresh_token',
  'token',
  'code',
  'client_secret',
  'password',
  'assertion',
  'client_assertion',
  'api_key',
  'apikey',
  'key',
  'secret',
  'session_state',
])
const CREDENTIAL_NAME = /token|secret|passw|credential|api[-_]?key/i
/** Three base64url segments starting with a JSON header (`eyJ`): a JWT, signed or not. */
const JWT_SHAPED = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g

/**
 * A line that looks like it holds a secret, by the rules the log's redaction uses: a credential-like
 * name given a value (`password = "..."`, `api_key: ...`), a JWT-shaped value, or a private key.
 */
export function looksLikeSecret(line: string): boolean {
  const name = /^[\s"'-]*([\w.-]+)["']?\s*[:=]/.exec(line)?.[1]
  return (!!name && CREDENTIAL_NAME.test(name)) || new RegExp(JWT_SHAPED.source).test(line) || /PRIVATE KEY/.test(line)
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/** The URL as it may be logged: credential-like query values and JWT-shaped values replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?')
  const path = (q === -1 ? url : url.slice(0, q)).replace(JWT_SHAPED, CENSOR)
  if (q === -1) return path
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      if (eq === -1) return pair.replace(JWT_SHAPED, CENSOR)
      const name = decoded(pair.slice(0, eq)).toLowerCase()
      if (CREDENTIAL_PARAMETERS.has(name) || CREDENTIAL_NAME.test(name)) return `${pair.slice(0, eq)}=${CENSOR}`
      return pair.replace(JWT_SHAPED, CENSOR)
    })
    .join('&')
  return `${path}?${query}`
}

/** Fastify's request serializer, with the URL redacted. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}

export function loggerOptions(config: Config, overrides?: boolean | Record<string, unknown>) {
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    serializers: { req: serializeRequest },
    ...(typeof overrides === 'object' ? overrides : {}),
  }
}
