// A typed client for the IES API: the spec's envelope unwrapped, errors that keep the API's code,
// message and field details, and one retry with a fresh token when the server says the access token
// expired. Only `fetch`: it runs in Node (the `ies` command line) and in a browser (the desktop's renderer).
import type {
  CatalogDocument,
  CredentialCreate,
  CredentialCreated,
  CredentialDetail,
  CredentialListQuery,
  CredentialSummary,
  CredentialValidation,
  Environment,
  EnvironmentInput,
  EnvironmentListQuery,
  EnvironmentSummary,
  ErrorDetail,
  GenerateBody,
  GeneratedFiles,
  Job,
  Pagination,
  PushBody,
  Upgradable,
  UpgradeBody,
  UpgradeJobs,
  RolloutView,
  CredentialUpdate,
  CredentialUpdated,
  User,
} from './types.ts'

export type * from './types.ts'

/** An error answer of the API (`{ error: { code, message, details } }`), or a transport failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly requestId?: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** `details` when it is the spec's `[{ field, message }]`. */
  get fieldErrors(): ErrorDetail[] {
    if (!Array.isArray(this.details)) return []
    return this.details.filter((d): d is ErrorDetail => typeof d?.field === 'string' && typeof d?.message === 'string')
  }
}

export interface TokenSource {
  /** The access token to send (null: none). */
  getToken(): Promise<string | null>
  /** Called once when the API refuses the token as expired or invalid; answers whether a retry makes sense. */
  renew?(): Promise<boolean>
}

export interface ApiClientOptions {
  /** The API root, e.g. `http://127.0.0.1:3000/api`. */
  baseUrl: string
  auth: TokenSource
  fetch?: typeof fetch
  /** Headers sent with every request (e.g. a user agent). */
  headers?: Record<string, string>
}

export interface ListResult<T> {
  data: T[]
  pagination: Pagination
}

export interface CatalogResult {
  status: 200 | 304
  etag: string | null
  /** `Warning: 110`: the server answered from its cache because the processor was unreachable. */
  stale: boolean
  document?: CatalogDocument
}

type Query = Record<string, string | number | boolean | undefined>

function queryString(params: Query = {}): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

async function errorOf(res: Response): Promise<ApiError> {
  type ErrorEnvelope = { error?: { code?: string; message?: string; details?: unknown }; meta?: { requestId?: string } }
  let body: ErrorEnvelope | null = null
  try {
    body = (await res.json()) as ErrorEnvelope
  } catch {
    // not JSON: the status says it
  }
  const e = body?.error
  return new ApiError(
    res.status,
    e?.code ?? `HTTP_${res.status}`,
    e?.message ?? (res.statusText || 'Request failed'),
    e?.details,
    body?.meta?.requestId ?? res.headers.get('x-request-id') ?? undefined,
  )
}

export function createApiClient(opts: ApiClientOptions) {
  const doFetch = opts.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args))
  const base = opts.baseUrl.replace(/\/+$/, '')
  const enc = encodeURIComponent

  async function send(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    const attempt = async () => {
      const token = await opts.auth.getToken()
      const h: Record<string, string> = { accept: 'application/json', ...opts.headers, ...headers }
      if (token) h.authorization = `Bearer ${token}`
      if (body !== undefined) h['content-type'] = 'application/json'
      try {
        return await doFetch(`${base}${path}`, {
          method,
          headers: h,
          body: body === undefined ? undefined : JSON.stringify(body),
          ...(signal && { signal }),
        })
      } catch (err) {
        if (signal?.aborted) throw signal.reason
        throw new ApiError(0, 'NETWORK_ERROR', `The server at ${base} could not be reached (${(err as Error).message})`)
      }
    }
    let res = await attempt()
    if (res.status === 401 && opts.auth.renew && (await opts.auth.renew())) {
      await res.body?.cancel()
      res = await attempt()
    }
    if (res.status >= 400) throw await errorOf(res)
    return res
  }

  async function json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await send(method, path, body, {}, signal)
    if (res.status === 204) return undefined as T
    return ((await res.json()) as { data: T }).data
  }

  async function list<T>(path: string): Promise<ListResult<T>> {
    const envelope = (await (await send('GET', path)).json()) as { data: T[]; pagination: Pagination }
    return { data: envelope.data, pagination: envelope.pagination }
  }

  /** Every page of a list (at most 100 a page). */
  async function all<T>(path: string, query: Query = {}): Promise<T[]> {
    const out: T[] = []
    for (let page = 1; ; page++) {
      const { data, pagination } = await list<T>(`${path}${queryString({ ...query, page, limit: 100 })}`)
      out.push(...data)
      if (page >= pagination.totalPages || data.length === 0) return out
    }
  }

  return {
    me: () => json<User>('GET', '/users/me'),

    listEnvironments: (q: Partial<EnvironmentListQuery> = {}) => list<EnvironmentSummary>(`/environments${queryString(q)}`),
    allEnvironments: (q: Partial<Omit<EnvironmentListQuery, 'page' | 'limit'>> = {}) => all<EnvironmentSummary>('/environments', q),
    getEnvironment: (id: string) => json<Environment>('GET', `/environments/${enc(id)}`),
    createEnvironment: (input: EnvironmentInput) => json<Environment>('POST', '/environments', input),
    /** A JSON Merge Patch (RFC 7396): omitted members are kept, `null` removes. */
    updateEnvironment: (id: string, patch: Record<string, unknown>) => json<Environment>('PUT', `/environments/${enc(id)}`, patch),
    deleteEnvironment: (id: string) => json<void>('DELETE', `/environments/${enc(id)}`),

    generate: (id: string, body: Partial<GenerateBody> & Pick<GenerateBody, 'format'>) =>
      json<Job>('POST', `/environments/${enc(id)}/generate`, body),
    generateAndWait: (id: string, body: Partial<GenerateBody> & Pick<GenerateBody, 'format'>) =>
      json<GeneratedFiles>('POST', `/environments/${enc(id)}/generate?wait=true`, body),
    push: (id: string, body: PushBody = {}) => json<Job>('POST', `/environments/${enc(id)}/push`, body),

    /** A job; `wait`: once it has ended, or when the server's long poll ends (`signal` stops waiting sooner). */
    job: (id: string, opts: { wait?: boolean; signal?: AbortSignal } = {}) =>
      json<Job>('GET', `/jobs/${enc(id)}${queryString({ wait: opts.wait || undefined })}`, undefined, opts.signal),
    /** An environment's jobs, newest first, a page at a time (`nextCursor` until null). */
    environmentJobs: async (id: string, q: { limit?: number; cursor?: string } = {}) => {
      const res = await send('GET', `/environments/${enc(id)}/jobs${queryString(q)}`)
      const body = (await res.json()) as { data: Job[]; pagination: { limit: number; nextCursor: string | null } }
      return { data: body.data, nextCursor: body.pagination.nextCursor }
    },
    /** The caller's pushed environments that are behind (templates or configuration changed since the last push). */
    upgrades: () => json<Upgradable[]>('GET', '/environments/upgrades'),
    /** One push job per environment that is behind (or per id given). */
    upgrade: (body: UpgradeBody) => json<UpgradeJobs>('POST', '/environments/upgrade', body),
    /** A bulk upgrade's rollout: its waves, each environment's jobs and outcome. */
    rollout: (id: string) => json<RolloutView>('GET', `/environments/upgrade/${enc(id)}`),
    /** The generated archive (a zip). */
    download: async (jobId: string): Promise<{ bytes: Uint8Array; filename: string | null }> => {
      const res = await send('GET', `/jobs/${enc(jobId)}/download`, undefined, { accept: 'application/zip, */*' })
      const disposition = res.headers.get('content-disposition') ?? ''
      const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? null
      return { bytes: new Uint8Array(await res.arrayBuffer()), filename }
    },

    listCredentials: (q: Partial<CredentialListQuery> = {}) => list<CredentialSummary>(`/cloud-credentials${queryString(q)}`),
    allCredentials: (q: Partial<Omit<CredentialListQuery, 'page' | 'limit'>> = {}) => all<CredentialSummary>('/cloud-credentials', q),
    getCredential: (id: string) => json<CredentialDetail>('GET', `/cloud-credentials/${enc(id)}`),
    createCredential: (input: CredentialCreate) => json<CredentialCreated>('POST', '/cloud-credentials', input),
    /** Renames a credential and/or replaces its secret values (a rotation). */
    updateCredential: (id: string, body: CredentialUpdate) => json<CredentialUpdated>('PUT', `/cloud-credentials/${enc(id)}`, body),
    deleteCredential: (id: string) => json<void>('DELETE', `/cloud-credentials/${enc(id)}`),
    setDefaultCredential: (id: string) => json<CredentialSummary>('PUT', `/cloud-credentials/${enc(id)}/default`),
    validateCredential: (id: string) => json<CredentialValidation>('POST', `/cloud-credentials/${enc(id)}/validate`),

    catalog: async (etag?: string | null): Promise<CatalogResult> => {
      const res = await send('GET', '/catalog', undefined, etag ? { 'if-none-match': etag } : {})
      const stale = /(^|,)\s*110\b/.test(res.headers.get('warning') ?? '')
      if (res.status === 304) return { status: 304, etag: res.headers.get('etag') ?? etag ?? null, stale }
      const body = (await res.json()) as { data: CatalogDocument }
      return { status: 200, etag: res.headers.get('etag'), stale, document: body.data }
    },

    /** The live OpenAPI document (what this server's routes accept). */
    openapi: async (): Promise<Record<string, unknown>> => (await (await send('GET', '/openapi.json')).json()) as Record<string, unknown>,
  }
}

export type ApiClient = ReturnType<typeof createApiClient>
