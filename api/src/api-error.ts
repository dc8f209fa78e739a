// The one error of the API client: an error answer of the API (`{ error: { code, message, details } }`),
// a transport failure (status 0), or a request held back by the client after a 429.
import type { ErrorDetail } from './envelope.ts'

export interface ApiErrorExtras {
  details?: unknown
  /** The request's id (`meta.requestId` or `X-Request-ID`), for support. */
  requestId?: string
  /** For a 429: when the server accepts requests again. */
  retryAt?: Date | null
}

export class ApiError extends Error {
  readonly details?: unknown
  readonly requestId?: string
  readonly retryAt: Date | null

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    extras: ApiErrorExtras = {},
  ) {
    super(message)
    this.name = 'ApiError'
    this.details = extras.details
    this.requestId = extras.requestId
    this.retryAt = extras.retryAt ?? null
  }

  get isRateLimited(): boolean {
    return this.status === 429
  }

  /** A route the server does not have (yet): a screen says so instead of failing silently. */
  get isMissingRoute(): boolean {
    return this.status === 404 && /^Route /.test(this.message)
  }

  /** `details` when it is the spec's `[{ field, message }]`. */
  get fieldDetails(): ErrorDetail[] {
    if (!Array.isArray(this.details)) return []
    return this.details.filter((d): d is ErrorDetail => typeof d?.field === 'string' && typeof d?.message === 'string')
  }

  /** `fieldDetails` as `{ field: message }`, the first message of each field (for a form). */
  get fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {}
    for (const d of this.fieldDetails) if (!(d.field in out)) out[d.field] = d.message
    return out
  }
}

/** The ApiError of an error answer; a body that is not the envelope leaves the status to say it. */
export async function errorOf(res: Response): Promise<ApiError> {
  type Body = { error?: { code?: string; message?: string; details?: unknown }; meta?: { requestId?: string } }
  let body: Body | null = null
  try {
    body = (await res.json()) as Body
  } catch {
    // not JSON: the status says it
  }
  const e = body?.error
  return new ApiError(res.status, e?.code ?? `HTTP_${res.status}`, e?.message ?? (res.statusText || 'Request failed'), {
    details: e?.details,
    requestId: body?.meta?.requestId ?? res.headers.get('x-request-id') ?? undefined,
  })
}

/**
 * When a rate-limited client may try again: `Retry-After` (seconds or an HTTP date), else
 * `X-RateLimit-Reset` (a Unix timestamp), else a minute from now.
 */
export function retryTimeOf(headers: Headers, now = Date.now()): Date {
  const after = headers.get('retry-after')?.trim()
  if (after && /^\d+$/.test(after)) return new Date(now + Number(after) * 1000)
  if (after && !Number.isNaN(Date.parse(after))) return new Date(Date.parse(after))
  const reset = headers.get('x-ratelimit-reset')?.trim()
  if (reset && /^\d+$/.test(reset)) return new Date(Number(reset) * 1000)
  return new Date(now + 60_000)
}

/** "Too many requests" in words: when the caller can try again. */
export function rateLimitMessage(retryAt: Date, now = Date.now()): string {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now) / 1000))
  const wait = seconds < 90 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${Math.ceil(seconds / 60)} minutes`
  const at = retryAt.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
  return `The server is limiting requests from this address. You can try again at ${at} (in ${wait}).`
}
