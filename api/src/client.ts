// The typed client of the IES API, for the `ies` command line and the desktop/web UI alike: the
// spec's envelope unwrapped, one ApiError that keeps the API's code, message, field details and
// request id, one retry with a renewed token when the server refuses the one it was given, and after
// a 429 no request until the time the server named. Only `fetch`: it runs in Node and in a browser.
import { ApiError, errorOf, rateLimitMessage, retryTimeOf } from './api-error.ts'
import type { Pagination } from './envelope.ts'
import { NETWORK_ERROR } from './errors.ts'
import type {
  CatalogDocument,
  CredentialCreate,
  CredentialCreated,
  CredentialDetail,
  CredentialListQuery,
  CredentialSummary,
  CredentialUpdate,
  CredentialUpdated,
  CredentialValidation,
  CreatedTerraformBackend,
  Environment,
  EnvironmentInput,
  EnvironmentListQuery,
  PolicyResult,
  EnvironmentSummary,
  GenerateBody,
  GeneratedFiles,
  HistoryEntry,
  HistoryEntryDetail,
  Team,
  TeamSettings,
  Approval,
  TeamMember,
  Job,
  JobFiles,
  JobHistoryPage,
  JobHistoryQuery,
  Preferences,
  PushBody,
  Upgradable,
  UpgradeBody,
  RolloutView,
  TerraformBackendCreate,
  UpgradeJobs,
  User,
  UserListQuery,
} from './types.ts'

export interface TokenSource {
  /** The access token to send (null: none). */
  getToken(): Promise<string | null>
  /** Called once when the API refuses the token; answers whether a retry with a new one makes sense. */
  renew?(): Promise<boolean>
}

export interface ApiClientOptions {
  /** The API root, e.g. `http://127.0.0.1:3000/api`. */
  baseUrl: string
  auth: TokenSource
  fetch?: typeof fetch
  /** Headers sent with every request (e.g. a user agent). */
  headers?: Record<string, string>
  /** Called when the API still refuses the token (after a renewal, if any): the sign-in has ended. */
  onUnauthorized?: () => void
  /** Called on a 429 with the time the server accepts requests again. */
  onRateLimited?: (retryAt: Date) => void
  now?: () => number
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

/** An archive: its bytes, and its file name as the server named it. */
export type Archive = Blob & { filename: string | null }

type Query = Record<string, string | number | boolean | undefined>

function queryString(params: object = {}): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

/** `Warning: 110` ("Response is Stale"), alone or among other warnings. */
export function isStaleWarning(header: string | null): boolean {
  return /(^|,)\s*110\b/.test(header ?? '')
}

interface SendOptions {
  headers?: Record<string, string>
  signal?: AbortSignal
  cache?: RequestCache
}

/** The transport: token, retry after a renewal, rate-limit hold, errors as ApiError. */
function transport(opts: ApiClientOptions) {
  const doFetch = opts.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args))
  const base = opts.baseUrl.replace(/\/+$/, '')
  const now = opts.now ?? Date.now
  // After a 429 the client holds its requests until the server accepts them again: each one would
  // only be refused and push the window further.
  let limitedUntil: Date | null = null

  async function attempt(method: string, path: string, body: unknown, o: SendOptions): Promise<Response> {
    const token = await opts.auth.getToken()
    const h: Record<string, string> = { accept: 'application/json', ...opts.headers, ...o.headers }
    if (token) h.authorization = `Bearer ${token}`
    if (body !== undefined) h['content-type'] = 'application/json'
    try {
      return await doFetch(`${base}${path}`, {
        method,
        headers: h,
        body: body === undefined ? undefined : JSON.stringify(body),
        ...(o.cache && { cache: o.cache }),
        ...(o.signal && { signal: o.signal }),
      })
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason
      throw new ApiError(0, NETWORK_ERROR, `The server at ${base} could not be reached (${(err as Error).message})`)
    }
  }

  async function rateLimited(res: Response): Promise<ApiError> {
    limitedUntil = retryTimeOf(res.headers, now())
    opts.onRateLimited?.(limitedUntil)
    const e = await errorOf(res)
    return new ApiError(429, e.code, rateLimitMessage(limitedUntil, now()), {
      details: e.details,
      requestId: e.requestId,
      retryAt: limitedUntil,
    })
  }

  return async function send(method: string, path: string, body?: unknown, o: SendOptions = {}): Promise<Response> {
    if (limitedUntil && limitedUntil.getTime() > now()) {
      throw new ApiError(429, 'RATE_LIMITED', rateLimitMessage(limitedUntil, now()), { retryAt: limitedUntil })
    }
    let res = await attempt(method, path, body, o)
    if (res.status === 401 && opts.auth.renew && (await opts.auth.renew())) {
      await res.body?.cancel()
      res = await attempt(method, path, body, o)
    }
    if (res.status === 401) opts.onUnauthorized?.()
    if (res.status === 429) throw await rateLimited(res)
    if (res.status >= 400) throw await errorOf(res)
    return res
  }
}

const enc = encodeURIComponent

type Send = ReturnType<typeof transport>

/** The envelope's readers: one resource (`data`), a page of a list (`data`, `pagination`), every page of a list. */
function readers(send: Send) {
  async function json<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await send(method, path, body, { signal })
    if (res.status === 204) return undefined as T
    return ((await res.json()) as { data: T }).data
  }

  async function list<T>(path: string): Promise<ListResult<T>> {
    const envelope = (await (await send('GET', path)).json()) as { data: T[]; pagination?: Pagination }
    const { data } = envelope
    return { data, pagination: envelope.pagination ?? { page: 1, limit: data.length, total: data.length, totalPages: 1 } }
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
  return { json, list, all }
}

type Readers = ReturnType<typeof readers>

/** The signed-in user, their preferences, and (admins) every user. */
function userRoutes({ json, list }: Readers) {
  return {
    me: () => json<User>('GET', '/users/me'),
    preferences: () => json<Preferences>('GET', '/users/me/preferences'),
    savePreferences: (p: Partial<Preferences>) => json<Preferences>('PUT', '/users/me/preferences', p),
    /** Admins only: every user, oldest first. */
    listUsers: (q: Partial<UserListQuery> = {}) => list<User>(`/users${queryString(q)}`),
  }
}

/** Environments: CRUD, generation, push, history, the state bucket. */
function environmentRoutes({ json, list, all }: Readers) {
  return {
    listEnvironments: (q: Partial<EnvironmentListQuery> = {}) => list<EnvironmentSummary>(`/environments${queryString(q)}`),
    allEnvironments: (q: Partial<Omit<EnvironmentListQuery, 'page' | 'limit'>> = {}) => all<EnvironmentSummary>('/environments', q),
    getEnvironment: (id: string) => json<Environment>('GET', `/environments/${enc(id)}`),
    createEnvironment: (input: EnvironmentInput) => json<Environment>('POST', '/environments', input),
    /** A JSON Merge Patch (RFC 7396): omitted members are kept, `null` removes. */
    updateEnvironment: (id: string, patch: Record<string, unknown>) => json<Environment>('PUT', `/environments/${enc(id)}`, patch),
    deleteEnvironment: (id: string) => json<void>('DELETE', `/environments/${enc(id)}`),
    /** Creates (201) or adopts (200) an S3 state bucket and answers the `terraformBackend` to store. */
    createTerraformBackend: (input: TerraformBackendCreate) =>
      json<CreatedTerraformBackend>('POST', '/environments/terraform-backend/create', input),

    generate: (id: string, body: Partial<GenerateBody> & Pick<GenerateBody, 'format'>) =>
      json<Job>('POST', `/environments/${enc(id)}/generate`, body),
    generateAndWait: (id: string, body: Partial<GenerateBody> & Pick<GenerateBody, 'format'>) =>
      json<GeneratedFiles>('POST', `/environments/${enc(id)}/generate?wait=true`, body),
    push: (id: string, body: PushBody = {}) => json<Job>('POST', `/environments/${enc(id)}/push`, body),
    /** A `plan` job: the Terraform plan of the tree a push would write. */
    plan: (id: string) => json<Job>('POST', `/environments/${enc(id)}/plan`),
    /** A `drift` job: the branch head's tree planned refresh-only against the cloud. */
    drift: (id: string) => json<Job>('POST', `/environments/${enc(id)}/drift`),
    /** A page of an environment's history of changes, newest first. */
    environmentHistory: (id: string, q: { page?: number; limit?: number } = {}) =>
      list<HistoryEntry>(`/environments/${enc(id)}/history${queryString(q)}`),
    /** One entry of an environment's history, with the configuration after it. */
    historyEntry: (id: string, entryId: number) => json<HistoryEntryDetail>('GET', `/environments/${enc(id)}/history/${entryId}`),
    /** Sets the configuration of an earlier entry (a new change; the current secrets are kept). */
    restoreEnvironment: (id: string, entryId: number) => json<Environment>('POST', `/environments/${enc(id)}/history/${entryId}/restore`),
    /** What the organisation's rules say of an environment document (a create body); nothing is stored. */
    evaluatePolicies: (environment: Record<string, unknown>) => json<PolicyResult>('POST', '/policies/evaluate', { environment }),
  }
}

/** Teams and their members; bulk upgrades and their rollouts; the assistant. */
function teamAndUpgradeRoutes({ json }: Readers) {
  return {
    /** The caller's teams with their role (an admin: every team). */
    teams: () => json<Team[]>('GET', '/teams'),
    createTeam: (name: string) => json<Team>('POST', '/teams', { name }),
    renameTeam: (id: string, name: string) => json<Team>('PUT', `/teams/${enc(id)}`, { name }),
    deleteTeam: (id: string) => json<void>('DELETE', `/teams/${enc(id)}`),
    teamMembers: (id: string) => json<TeamMember[]>('GET', `/teams/${enc(id)}/members`),
    /** Adds a member (a user by user name, a client by client id) or changes their role. */
    setTeamMember: (id: string, member: TeamMember) =>
      json<TeamMember>('PUT', `/teams/${enc(id)}/members/${enc(member.kind)}/${enc(member.name)}`, { role: member.role }),
    removeTeamMember: (id: string, member: Pick<TeamMember, 'kind' | 'name'>) =>
      json<void>('DELETE', `/teams/${enc(id)}/members/${enc(member.kind)}/${enc(member.name)}`),
    /** Sets a team's settings (admin), e.g. whether its production pushes need approval. */
    setTeamSettings: (id: string, settings: TeamSettings) => json<Team>('PUT', `/teams/${enc(id)}/settings`, settings),
    /** The pushes awaiting approval the caller may see (`canDecide`: theirs to approve or reject). */
    approvals: () => json<Approval[]>('GET', '/approvals'),
    /** Approves a push awaiting approval: it is queued. */
    approve: (jobId: string) => json<Job>('POST', `/approvals/${enc(jobId)}/approve`),
    /** Rejects a push awaiting approval: it ends as APPROVAL_REJECTED, nothing is pushed. */
    reject: (jobId: string, reason?: string) => json<Job>('POST', `/approvals/${enc(jobId)}/reject`, reason ? { reason } : {}),
    /** The caller's pushed environments that are behind (templates or configuration changed since the last push). */
    upgrades: () => json<Upgradable[]>('GET', '/environments/upgrades'),
    /** One push job per environment that is behind (or per id given). */
    upgrade: (body: UpgradeBody) => json<UpgradeJobs>('POST', '/environments/upgrade', body),
    /** A bulk upgrade's rollout: its waves, each environment's jobs and outcome. */
    rollout: (id: string) => json<RolloutView>('GET', `/environments/upgrade/${enc(id)}`),
    /** POST /ai/chat: the configuration assistant (the body and reply are the assistant panel's). */
    aiChat: <T>(request: object) => json<T>('POST', '/ai/chat', request),
  }
}

/** Jobs: one, several (long polling), an environment's history of jobs, a generation's files and archive. */
function jobRoutes({ json }: Readers, send: Send) {
  return {
    /** A job; `wait`: once it has ended, or when the server's long poll ends (`signal` stops waiting sooner). */
    job: (id: string, o: { wait?: boolean; signal?: AbortSignal } = {}) =>
      json<Job>('GET', `/jobs/${enc(id)}${queryString({ wait: o.wait || undefined })}`, undefined, o.signal),
    /** Several jobs at once; with `wait`, once one of them has ended (or after the long-poll timeout). */
    jobs: (ids: readonly string[], o: { wait?: boolean } = {}) =>
      json<Job[]>('GET', `/jobs${queryString({ ids: ids.join(','), wait: o.wait || undefined })}`),
    /** An environment's jobs, newest first, a page at a time (`nextCursor` until null). */
    environmentJobs: async (
      id: string,
      q: Partial<JobHistoryQuery> = {},
    ): Promise<{ data: Job[]; nextCursor: JobHistoryPage['pagination']['nextCursor'] }> => {
      const res = await send('GET', `/environments/${enc(id)}/jobs${queryString(q)}`)
      const body = (await res.json()) as JobHistoryPage
      return { data: body.data, nextCursor: body.pagination.nextCursor }
    },
    /** What a successful generation produced: its files (paths and sizes) and templates commit. */
    jobFiles: (id: string) => json<JobFiles>('GET', `/jobs/${enc(id)}/files`),
    /** The generated archive (a zip). */
    download: async (jobId: string): Promise<Archive> => {
      const res = await send('GET', `/jobs/${enc(jobId)}/download`, undefined, { headers: { accept: 'application/zip, */*' } })
      const filename = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? null
      return Object.assign(await res.blob(), { filename })
    },
  }
}

/** Cloud credentials: list, create, rename or rotate, delete, the default, a check. */
function credentialRoutes({ json, list, all }: Readers) {
  return {
    listCredentials: (q: Partial<CredentialListQuery> = {}) => list<CredentialSummary>(`/cloud-credentials${queryString(q)}`),
    allCredentials: (q: Partial<Omit<CredentialListQuery, 'page' | 'limit'>> = {}) => all<CredentialSummary>('/cloud-credentials', q),
    getCredential: (id: string) => json<CredentialDetail>('GET', `/cloud-credentials/${enc(id)}`),
    createCredential: (input: CredentialCreate) => json<CredentialCreated>('POST', '/cloud-credentials', input),
    /** Renames a credential and/or replaces its secret values (a rotation). */
    updateCredential: (id: string, body: CredentialUpdate) => json<CredentialUpdated>('PUT', `/cloud-credentials/${enc(id)}`, body),
    deleteCredential: (id: string) => json<void>('DELETE', `/cloud-credentials/${enc(id)}`),
    setDefaultCredential: (id: string) => json<CredentialSummary>('PUT', `/cloud-credentials/${enc(id)}/default`),
    validateCredential: (id: string) => json<CredentialValidation>('POST', `/cloud-credentials/${enc(id)}/validate`),
  }
}

/** The catalog (revalidated with its ETag) and the live OpenAPI document. */
function documentRoutes(send: Send) {
  return {
    /**
     * The catalog, revalidated with the ETag the caller holds. A browser's own HTTP cache stays out of
     * it, so a 304 always reaches the caller and means "your copy is current".
     */
    catalog: async (etag?: string | null): Promise<CatalogResult> => {
      const res = await send('GET', '/catalog', undefined, { headers: etag ? { 'if-none-match': etag } : {}, cache: 'no-store' })
      const stale = isStaleWarning(res.headers.get('warning'))
      if (res.status === 304) return { status: 304, etag: res.headers.get('etag') ?? etag ?? null, stale }
      const body = (await res.json()) as { data: CatalogDocument }
      return { status: 200, etag: res.headers.get('etag'), stale, document: body.data }
    },

    /** The live OpenAPI document (what this server's routes accept). */
    openapi: async (): Promise<Record<string, unknown>> => (await (await send('GET', '/openapi.json')).json()) as Record<string, unknown>,
  }
}

export function createApiClient(opts: ApiClientOptions) {
  const send = transport(opts)
  const r = readers(send)
  return {
    ...userRoutes(r),
    ...environmentRoutes(r),
    ...teamAndUpgradeRoutes(r),
    ...jobRoutes(r, send),
    ...credentialRoutes(r),
    ...documentRoutes(send),
  }
}

export type ApiClient = ReturnType<typeof createApiClient>
