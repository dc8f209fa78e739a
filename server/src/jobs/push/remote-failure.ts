// A failure to reach or persuade the Git server, as a JobFailure the user can act on, with the
// original error as its cause for the log: GIT_UNREACHABLE (connection refused, DNS, timeout, TLS),
// GIT_UNAUTHORIZED (the credentials refused: a 401, which isomorphic-git reports as a
// UserCanceledError once onAuthFailure has declined to retry, or a 403), GIT_REPOSITORY_NOT_FOUND
// (404), GIT_PUSH_REJECTED (the server declined the ref update), GIT_FAILED (another HTTP answer).
// Anything else is left as it is (unexpected).
import { JobFailure } from '../../core/job-failure.ts'

/** `host:port` of the URL, the port always given (443 or 80 when the URL has none). */
function endpointOf(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || (u.protocol === 'http:' ? 80 : 443)}`
  } catch {
    return 'the Git server'
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname
  } catch {
    return url
  }
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ECONNABORTED: 'the connection was aborted',
  EPIPE: 'the connection was closed',
  ETIMEDOUT: 'the connection timed out',
  ESOCKETTIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the DNS lookup failed',
  EAI_FAIL: 'the DNS lookup failed',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EHOSTDOWN: 'the host is down',
  ENETDOWN: 'the network is down',
}

const CERTIFICATE_REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  CERT_NOT_YET_VALID: 'its TLS certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is not for this host',
}

/** Node's certificate verification codes (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `SELF_SIGNED_CERT_IN_CHAIN`, ...). */
const isCertificateCode = (code: string) => /CERT|^UNABLE_TO_|^HOSTNAME_MISMATCH$/.test(code)

/** The codes on the error, its cause chain and an AggregateError's errors (Node's happy-eyeballs connect). */
function codesOf(err: unknown, depth = 0): { code: string; message: string }[] {
  if (!err || typeof err !== 'object' || depth > 5) return []
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }
  const own = typeof e.code === 'string' ? [{ code: e.code, message: typeof e.message === 'string' ? e.message : '' }] : []
  const inner = Array.isArray(e.errors) ? e.errors.flatMap((x) => codesOf(x, depth + 1)) : []
  return [...own, ...codesOf(e.cause, depth + 1), ...inner]
}

/** Why the connection failed, as a phrase; undefined when it is no network or TLS failure. */
function connectionReason(err: unknown): string | undefined {
  for (const { code, message } of codesOf(err)) {
    if (NETWORK_REASONS[code]) return NETWORK_REASONS[code]
    if (CERTIFICATE_REASONS[code]) return CERTIFICATE_REASONS[code]
    if (isCertificateCode(code)) return `its TLS certificate is not trusted (${code})`
    if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
      return /wrong version number|packet length too long|http request/i.test(message)
        ? 'the TLS handshake failed (the server does not speak HTTPS on that port)'
        : 'the TLS handshake failed'
    }
  }
  return undefined
}

/**
 * The JobFailure for an error of talking to the Git server at `url` (the original error as its
 * cause), or undefined when the error is none of those (a bug, a local file system failure).
 */
export function remoteFailure(err: unknown, url: string, ref: string): JobFailure | undefined {
  const where = endpointOf(url)
  const cause = { cause: err }
  const reason = connectionReason(err)
  if (reason) return new JobFailure('GIT_UNREACHABLE', `Could not connect to ${where}: ${reason}`, undefined, cause)
  const code = (err as { code?: unknown })?.code
  if (code === 'UserCanceledError') {
    // Our onAuth always answers; the cancel is onAuthFailure's, after the server answered the
    // credentials with 401 (or Azure DevOps' 203 sign-in page) again.
    const refused = new Error(
      'the Git server answered the credentials sent with HTTP 401 (or 203); isomorphic-git stopped (onAuthFailure: cancel)',
      cause,
    )
    return new JobFailure(
      'GIT_UNAUTHORIZED',
      `The Git server at ${where} refused the credentials: the deploy key must be an access token valid for this repository`,
      undefined,
      { cause: refused },
    )
  }
  if (code === 'HttpError') {
    const data = (err as { data?: { statusCode?: number; statusMessage?: string } }).data ?? {}
    const status = `HTTP ${data.statusCode ?? '?'}${data.statusMessage ? ` ${data.statusMessage}` : ''}`
    if (data.statusCode === 401 || data.statusCode === 403) {
      return new JobFailure(
        'GIT_UNAUTHORIZED',
        `The Git server at ${where} refused the credentials (${status}): the deploy key must be an access token with write access to this repository`,
        undefined,
        cause,
      )
    }
    if (data.statusCode === 404) {
      return new JobFailure(
        'GIT_REPOSITORY_NOT_FOUND',
        `The Git server at ${where} has no repository ${pathOf(url)} (${status}), or the deploy key may not see it`,
        undefined,
        cause,
      )
    }
    return new JobFailure('GIT_FAILED', `The Git server at ${where} answered ${status}`, undefined, cause)
  }
  if (code === 'GitPushError' || code === 'PushRejectedError') {
    const e = err as { data?: { result?: Parameters<typeof refusalOf>[0]; reason?: string } }
    const reason = e.data?.result
      ? refusalOf(e.data.result)
      : e.data?.reason === 'not-fast-forward'
        ? 'the branch moved on meanwhile (not a fast-forward); push again'
        : (e.data?.reason ?? 'rejected')
    return new JobFailure('GIT_PUSH_REJECTED', `The Git server refused the push to ${ref}: ${reason}`, undefined, cause)
  }
  return undefined
}

/** Why the Git server refused a push: the first refused ref's error, else the whole answer's. */
export function refusalOf(result: { refs?: Record<string, { ok: boolean; error?: string }>; error?: string | null }): string {
  return Object.values(result.refs ?? {}).find((r) => !r.ok)?.error ?? result.error ?? 'rejected'
}
