// A small client for the IES API: bearer token, the spec's envelope, and errors that keep the
// server's code and field details so screens can show them next to the field the server named.
import type {
  CloudCredential,
  CredentialDetail,
  CredentialProvider,
  CredentialValidation,
  Environment,
  EnvironmentInput,
  EnvironmentSummary,
  GenerateRequest,
  Job,
  JobFiles,
  Pagination,
  Preferences,
  Rollout,
  User,
} from './types.ts'
import type { EnvironmentUpgrade, PushStrategy } from './push-lifecycle.ts'

export interface PushRequest {
  /** Preview: the job computes the changes and writes nothing. */
  dryRun?: boolean
  strategy?: PushStrategy
}

export interface UpgradeStarted {
  jobs: { environmentId: string; jobId: string }[]
  skipped: { environmentId: string; name?: string; reason: string }[]
  /** The rollout tracking the pushes (GET /environments/upgrade/:id). */
  rolloutId: string
}

export interface FieldError {
  field: string
  message: string
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** For a 429: when the server accepts requests again. */
    readonly retryAt: Date | null = null,
  ) {
    super(message)
  }

  get isRateLimited(): boolean {
    return this.status === 429
  }

  /** `details` as `{field: message}` (first message per field). */
  get fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {}
    if (Array.isArray(this.details)) {
      for (const d of this.details as FieldError[]) {
        if (d && typeof d.field === 'string' && !(d.field in out)) out[d.field] = String(d.message)
      }
    }
    return out
  }

  /** A route the server does not have (yet): screens say so instead of failing silently. */
  get isMissingRoute(): boolean {
    return this.status === 404 && /^Route /.test(this.message)
  }
}

export interface ApiClientOptions {
  baseUrl: string
  /** The current access token (refreshed by the session when it is about to expire). */
  getToken: () => Promise<string | null>
  /** Called on 401 so the app can send the user to the login. */
  onUnauthorized?: () => void
  /** Called on 429 with the time the server accepts requests again. */
  onRateLimited?: (retryAt: Date) => void
  fetch?: typeof fetch
  now?: () => number
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

/** "Too many requests" in words: when the user can try again. */
export function rateLimitMessage(retryAt: Date, now = Date.now()): string {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now) / 1000))
  const wait = seconds < 90 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${Math.ceil(seconds / 60)} minutes`
  const at = retryAt.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
  return `The server is limiting requests from this address. You can try again at ${at} (in ${wait}); everything already on screen stays usable.`
}

export interface ListResult<T> {
  data: T[]
  pagination: Pagination
}

export interface EnvironmentQuery {
  page?: number
  limit?: number
  provider?: string
  status?: string
  sort?: 'created_at' | 'name'
  order?: 'asc' | 'desc'
}

export interface CatalogResponse {
  status: 200 | 304
  etag: string | null
  /** `Warning: 110`: served from the backend's cache because the processor was unreachable. */
  stale: boolean
  document?: unknown
}

/** `Warning: 110` ("Response is Stale"), alone or among other warnings. */
export function isStaleWarning(header: string | null): boolean {
  return /(^|,)\s*110\b/.test(header ?? '')
}

function query(params: object): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

export function createApiClient(opts: ApiClientOptions) {
  const doFetch = opts.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args))
  const base = opts.baseUrl.replace(/\/+$/, '')
  const now = opts.now ?? Date.now
  // After a 429 the client holds its requests until the server accepts them again: each one would
  // only be refused and push the window further.
  let limitedUntil: Date | null = null

  async function raw(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    init: Pick<RequestInit, 'cache'> = {},
  ): Promise<Response> {
    if (limitedUntil && limitedUntil.getTime() > now()) {
      throw new ApiError(429, 'RATE_LIMITED', rateLimitMessage(limitedUntil, now()), undefined, limitedUntil)
    }
    const token = await opts.getToken()
    const h: Record<string, string> = { accept: 'application/json', ...headers }
    if (token) h.authorization = `Bearer ${token}`
    if (body !== undefined) h['content-type'] = 'application/json'
    let res: Response
    try {
      res = await doFetch(`${base}${path}`, { ...init, method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) })
    } catch (err) {
      throw new ApiError(0, 'NETWORK_ERROR', `The server could not be reached (${(err as Error).message})`)
    }
    if (res.status === 401) opts.onUnauthorized?.()
    if (res.status === 429) {
      limitedUntil = retryTimeOf(res.headers, now())
      opts.onRateLimited?.(limitedUntil)
      const e = await errorOf(res)
      throw new ApiError(429, e.code, rateLimitMessage(limitedUntil, now()), e.details, limitedUntil)
    }
    if (res.status >= 400) throw await errorOf(res)
    return res
  }

  async function errorOf(res: Response): Promise<ApiError> {
    let body: any = null
    try {
      body = await res.json()
    } catch {
      // not JSON
    }
    const e = body?.error
    return new ApiError(res.status, e?.code ?? `HTTP_${res.status}`, e?.message ?? res.statusText ?? 'Request failed', e?.details)
  }

  async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await raw(method, path, body)
    if (res.status === 204) return undefined as T
    const envelope = (await res.json()) as { data: T }
    return envelope.data
  }

  async function list<T>(path: string): Promise<ListResult<T>> {
    const res = await raw('GET', path)
    const envelope = (await res.json()) as { data: T[]; pagination?: Pagination }
    const pagination = envelope.pagination ?? { page: 1, limit: envelope.data.length, total: envelope.data.length, totalPages: 1 }
    return { data: envelope.data, pagination }
  }

  const enc = encodeURIComponent

  return {
    me: () => json<User>('GET', '/users/me'),
    preferences: () => json<Preferences>('GET', '/users/me/preferences'),
    /** Admins only: every user, oldest first. */
    listUsers: (q: { page?: number; limit?: number } = {}) => list<User & { createdAt: string }>(`/users${query(q)}`),
    savePreferences: (p: Partial<Preferences>) => json<Preferences>('PUT', '/users/me/preferences', p),

    listEnvironments: (q: EnvironmentQuery = {}) => list<EnvironmentSummary>(`/environments${query(q)}`),
    getEnvironment: (id: string) => json<Environment>('GET', `/environments/${enc(id)}`),
    createEnvironment: (input: EnvironmentInput) => json<Environment>('POST', '/environments', input),
    updateEnvironment: (id: string, patch: Partial<EnvironmentInput>) => json<Environment>('PUT', `/environments/${enc(id)}`, patch),
    deleteEnvironment: (id: string) => json<void>('DELETE', `/environments/${enc(id)}`),
    createTerraformBackend: (input: Record<string, unknown>) =>
      json<Record<string, unknown>>('POST', '/environments/terraform-backend/create', input),

    listCredentials: () => list<CloudCredential>('/cloud-credentials'),
    getCredential: (id: string) => json<CredentialDetail>('GET', `/cloud-credentials/${enc(id)}`),
    createCredential: (input: { name: string; provider: CredentialProvider; credentials: Record<string, unknown> }) =>
      json<CloudCredential>('POST', '/cloud-credentials', input),
    /** Rename, and with `credentials` replace the whole secret (rotate). */
    updateCredential: (id: string, body: { name?: string; credentials?: Record<string, unknown> }) =>
      json<CloudCredential>('PUT', `/cloud-credentials/${enc(id)}`, body),
    deleteCredential: (id: string) => json<void>('DELETE', `/cloud-credentials/${enc(id)}`),
    setDefaultCredential: (id: string) => json<unknown>('PUT', `/cloud-credentials/${enc(id)}/default`, {}),
    validateCredential: (id: string) => json<CredentialValidation>('POST', `/cloud-credentials/${enc(id)}/validate`),

    generate: (id: string, req: GenerateRequest) => json<Job>('POST', `/environments/${enc(id)}/generate`, req),
    /** POST /ai/chat: the configuration assistant (the body and reply are the assistant panel's). */
    aiChat: <T>(request: object) => json<T>('POST', '/ai/chat', request),
    push: (id: string, body: PushRequest = {}) => json<Job>('POST', `/environments/${enc(id)}/push`, body),
    /** The caller's pushed environments that are behind (templates or configuration). */
    upgrades: () => json<EnvironmentUpgrade[]>('GET', '/environments/upgrades'),
    /** One push job per environment that is behind (or per id given). */
    upgrade: (body: { ids?: string[]; waves?: string[] } & PushRequest) => json<UpgradeStarted>('POST', '/environments/upgrade', body),
    /** A bulk upgrade's rollout: its waves, each environment's jobs and outcome. */
    rollout: (id: string) => json<Rollout>('GET', `/environments/upgrade/${enc(id)}`),
    /** Several jobs at once; with `wait`, once one of them has finished (or after the long-poll timeout). */
    jobs: (ids: readonly string[], opts: { wait?: boolean } = {}) =>
      json<Job[]>('GET', `/jobs${query({ ids: ids.join(','), wait: opts.wait || undefined })}`),
    /** One page of the environment's jobs, newest first; `nextCursor` (null: the last page) asks for the next. */
    environmentJobs: async (
      id: string,
      q: { limit?: number; cursor?: string } = {},
    ): Promise<{ data: Job[]; nextCursor: string | null }> => {
      const page = (await (await raw('GET', `/environments/${enc(id)}/jobs${query(q)}`)).json()) as {
        data: Job[]
        pagination: { nextCursor: string | null }
      }
      return { data: page.data, nextCursor: page.pagination.nextCursor }
    },
    /** What a successful generation produced: its files (paths and sizes) and templates commit. */
    jobFiles: (id: string) => json<JobFiles>('GET', `/jobs/${enc(id)}/files`),
    /** A job; with `wait`, the server answers once it has finished (or after its long-poll timeout). */
    job: (id: string, opts: { wait?: boolean } = {}) => json<Job>('GET', `/jobs/${enc(id)}${opts.wait ? '?wait=true' : ''}`),
    /** The generated archive. */
    download: async (jobId: string): Promise<Blob> =>
      (await raw('GET', `/jobs/${enc(jobId)}/download`, undefined, { accept: '*/*' })).blob(),

    /**
     * The catalog, revalidated with the ETag the client holds (catalog-cache.ts). The browser's own
     * HTTP cache stays out of it, so a 304 always reaches the caller and means "your copy is current".
     */
    catalog: async (etag?: string | null): Promise<CatalogResponse> => {
      const res = await raw('GET', '/catalog', undefined, etag ? { 'if-none-match': etag } : {}, { cache: 'no-store' })
      const stale = isStaleWarning(res.headers.get('warning'))
      if (res.status === 304) return { status: 304, etag: res.headers.get('etag') ?? etag ?? null, stale }
      const body = (await res.json()) as { data?: unknown }
      return { status: 200, etag: res.headers.get('etag'), stale, document: body && 'data' in body ? body.data : body }
    },
  }
}

export type ApiClient = ReturnType<typeof createApiClient>
