// The one place where configuration is read from the environment. Every variable has a default
// that works on a developer's machine and a row in docs/configuration.md.
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface Config {
  env: 'development' | 'test' | 'production'
  host: string
  port: number
  /** The address clients use to reach this server (also the embedded identity provider's base). */
  publicUrl: string
  logLevel: string
  trustProxy: boolean
  bodyLimitBytes: number
  /** HELM_VALUES_PARSE_TIMEOUT_MS: how long the chart values YAML of one request may take to check (off the main thread). */
  yamlParseTimeoutMs: number
  mongodbUri: string
  auth: {
    /** Base URL of the identity provider; `undefined` means the embedded provider at `publicUrl`. */
    url: string | undefined
    realm: string
    appClientId: string
    cliClientId: string
    cliClientSecret: string
    /** When set, a token's `aud` or `azp` must contain this value. */
    audience: string | undefined
    /** AUTH_ALLOWED_CLIENTS: the clients (`azp`) whose access tokens open the API. */
    allowedClients: string[]
    /** AUTH_JWKS_REFETCH_INTERVAL_MS: the key set is fetched again for an unknown `kid` at most this often; unknown kids are remembered this long. */
    jwksRefetchIntervalMs: number
    devUserPassword: string
    devAdminPassword: string
  }
  /** Teams from the identity provider (docs/teams.md, docs/operations.md "Teams from the identity provider"). */
  teams: {
    /** TEAMS_GROUPS_CLAIM: the access-token claim listing the caller's groups; unset: teams come from IES alone. */
    groupsClaim: string | undefined
    /** TEAMS_GROUPS_PREFIX: a group `<prefix><team>/<role>` makes its members `<role>` in `<team>`. */
    groupsPrefix: string
  }
  rateLimit: {
    ipMax: number
    ipWindowMs: number
    userMax: number
    userWindowMs: number
    redisUrl: string | undefined
  }
  /** The web UI served at `/` (server/src/web) and its client environment script `/env.js`. */
  web: {
    /** WEB_UI_DIR: the built renderer (`npm run build -w desktop` writes desktop/dist). */
    uiDir: string
    /** USE_RUNTIME_CATALOG: env.js tells the wizard to build itself from GET /api/catalog (else its static catalog). */
    useRuntimeCatalog: boolean
  }
  /** Encryption at rest of stored secrets (server/src/core/crypto.ts). */
  encryption: {
    /** ENCRYPTION_KEY: the current key, 32 bytes in base64. Required in production. */
    key: string | undefined
    /** ENCRYPTION_KEYS: older keys (comma-separated base64) that still decrypt. */
    oldKeys: string[]
    /** Where development keeps a generated key when ENCRYPTION_KEY is unset. */
    devKeyFile: string
  }
  /** Endpoints used to check cloud credentials (POST /api/cloud-credentials/:id/validate). */
  cloud: {
    /** AWS_ENDPOINT_URL: the AWS API endpoint (STS); unset means AWS itself. */
    awsEndpointUrl: string | undefined
    /** AZURE_AUTHORITY_HOST: Microsoft Entra token host; the tenant path is appended. */
    azureAuthorityHost: string
    /** GCP_TOKEN_URL: Google's OAuth 2.0 token endpoint. */
    gcpTokenUrl: string
    /** CREDENTIAL_VALIDATE_TIMEOUT_MS: how long one credential check may take. */
    validateTimeoutMs: number
  }
  /** Generation and push jobs (server/src/jobs/). */
  jobs: {
    /** JOBS_CONCURRENCY: jobs of one type (generate, push) run at once on one replica. */
    concurrency: number
    /** JOBS_LOCK_LIFETIME_MS: a running job whose worker stops refreshing its lock this long is picked up by another. */
    lockLifetimeMs: number
    /** JOBS_PROCESS_EVERY_MS: how often a replica scans for due or abandoned jobs (new jobs start at once by notification). */
    processEveryMs: number
    /** JOBS_NOTIFY: `false` turns the immediate notification channel off (polling only; benchmarks). */
    notify: boolean
    /** JOBS_PROCESS: `false` makes an API-only replica: it queues jobs (and notifies) but runs none. */
    process: boolean
    /** JOBS_WAIT_TIMEOUT_MS: longest a `?wait=true` generation request waits before answering 202. */
    waitTimeoutMs: number
    /** RETENTION_KEEP_PER_ENVIRONMENT, RETENTION_MAX_AGE_MS, RETENTION_SWEEP_EVERY_MS: finished jobs kept (server/src/jobs/queue/retention.ts). */
    retention: { keepPerEnvironment: number; maxAgeMs: number; sweepEveryMs: number }
    /** JOBS_WAIT_RECHECK_MS: longest a waiter goes without re-reading its job (it is woken by the job's completion announcement). */
    waitRecheckMs: number
  }
  /** Terraform plans and drift checks (server/src/jobs/plan/; docs/operations.md, "Terraform for plans"). */
  plan: {
    /** TERRAFORM_BIN: the Terraform executable (default `terraform` on PATH). */
    terraformBin: string
    /** TERRAFORM_CLI_CONFIG: the CLI configuration Terraform runs with (a provider mirror); unset: Terraform's defaults. */
    cliConfigFile: string | undefined
    /** TERRAFORM_PLUGIN_CACHE_DIR: the providers' cache shared by every plan (a warm init downloads nothing). */
    pluginCacheDir: string | undefined
    /** PLAN_TIMEOUT_MS: longest one Terraform command may run. */
    timeoutMs: number
    /** PLAN_OUTPUT_CAP_BYTES: most output one Terraform command may write. */
    outputCapBytes: number
    /** PLAN_CONCURRENCY: plans (and drift checks) of one replica at once, apart from generations and pushes. */
    concurrency: number
    /** Scheduled drift checks (environments' `driftCheckHours`; plugins/plans/drift-schedule.ts). */
    driftSchedule: {
      /** DRIFT_SCHEDULE_SCAN_MS: how often a replica that runs jobs looks for environments due a check. */
      scanEveryMs: number
      /** DRIFT_SCHEDULE_CONCURRENCY: scheduled checks queued or running at once (counted from the database), so they never fill the plan slots. */
      concurrency: number
    }
  }
  /** Where generation reads templates: TEMPLATES_REPO (a Git URL, branch main, unpinned) or TEMPLATES_DIR. */
  templates: {
    dir: string
    repo: string | undefined
    /** TEMPLATES_CACHE_DIR: the cached clone of TEMPLATES_REPO. */
    cacheDir: string
  }
  /** How generation runs the template processor (server/src/jobs/generation/processor-client.ts). */
  generation: {
    /** TRIM_DECORATOR_ATTRS=1: the in-process processor strips decorator attribute tails (a remote processor follows its own setting). */
    trimDecoratorAttrs: boolean
    /** PROCESSOR_GENERATE_TIMEOUT_MS: how long one generation request to the remote processor (clone and processing) may take. */
    processorTimeoutMs: number
  }
  /** GET /api/catalog, and generation: in process, or a remote processor service (PROCESSOR_URL + PROCESSOR_SERVICE_TOKEN). */
  catalog: {
    processorUrl: string | undefined
    processorToken: string | undefined
    ttlMs: number
    staleMs: number
    timeoutMs: number
  }
  /** POST /api/environments/:id/push. */
  push: {
    /** PUSH_ALLOWED_HOSTS: hosts or addresses on loopback/private/link-local networks that pushes may reach. */
    allowedHosts: string[]
    /** GIT_PUSH_USERNAME: the HTTP Basic user name sent with the deploy key as password. */
    username: string
    /** GIT_TIMEOUT_MS: a Git server that sends nothing this long fails the push. */
    gitTimeoutMs: number
    authorName: string
    authorEmail: string
    /** PUSH_CACHE_DIR: where the repositories pushes fetch are kept between pushes (default: in the system's temporary folder). */
    cacheDir: string
  }
  /** The organisation's rules in Rego (plugins/policies, docs/policies.md). */
  policies: {
    /** POLICIES_DIR: a folder of the organisation's own `.rego` rules, evaluated with the built-in ones (`<TEMPLATES_DIR>/policies`). */
    dir: string | undefined
    /** OPA_PATH: the `opa` binary that compiles the rules to WebAssembly (default: `.tools/bin/opa` of this checkout, else `opa` on PATH). */
    opaPath: string
    /** POLICIES_CACHE_DIR: where compiled rule bundles are kept, by the hash of their sources. */
    cacheDir: string
  }
  /** The change history of environments (plugins/history). */
  history: {
    /** HISTORY_RETENTION_DAYS: how long the history of a deleted environment is kept. */
    retentionDays: number
  }
  /** Approvals of production pushes (plugins/approvals). */
  approvals: {
    /** APPROVAL_EXPIRY_MS: how long a push waits for approval before it ends as APPROVAL_EXPIRED. */
    expiryMs: number
  }
  /** POST /api/ai/chat: the configuration assistant (plugins/ai/README.md). */
  ai: {
    /** AI_BASE_URL: an OpenAI-compatible API root (…/v1); unset means the built-in assistant. */
    baseUrl: string | undefined
    /** AI_API_KEY: sent as a Bearer token to the model service only; never logged or returned. */
    apiKey: string | undefined
    /** AI_MODEL: the model name sent with each request; required with AI_BASE_URL. */
    model: string | undefined
    /** AI_TIMEOUT_MS: how long one model request may take. */
    timeoutMs: number
  }
}

/** The templates tree shipped with the service (`templates/` at the repository root). */
export const BUNDLED_TEMPLATES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../templates')

/** The `opa` binary `npm run provision` builds into this checkout, else the one on PATH. */
const PROVISIONED_OPA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.tools/bin/opa')
const BUNDLED_OPA = existsSync(PROVISIONED_OPA) ? PROVISIONED_OPA : 'opa'

type Env = Record<string, string | undefined>

export class ConfigError extends Error {}

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a non-negative integer`)
  return value
}

function str(env: Env, name: string, fallback: string): string {
  const raw = env[name]
  return raw === undefined || raw === '' ? fallback : raw
}

function optional(env: Env, name: string): string | undefined {
  const raw = env[name]
  return raw === undefined || raw === '' ? undefined : raw
}

/** A comma-separated list, or undefined when the variable is unset or empty. */
function list(env: Env, name: string): string[] | undefined {
  const items = (optional(env, name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
  return items.length > 0 ? items : undefined
}

function environment(env: Env): Config['env'] {
  const value = str(env, 'NODE_ENV', 'development')
  if (value === 'production' || value === 'test') return value
  return 'development'
}

/** A 256-bit key in standard base64. */
function isKey(value: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32
}

export function loadConfig(env: Env = process.env): Config {
  const host = str(env, 'HOST', '127.0.0.1')
  const port = int(env, 'PORT', 3000)
  const authUrl = optional(env, 'AUTH_URL')
  const config: Config = {
    env: environment(env),
    host,
    port,
    publicUrl: str(env, 'PUBLIC_URL', `http://${host}:${port}`).replace(/\/+$/, ''),
    logLevel: str(env, 'LOG_LEVEL', 'info'),
    trustProxy: str(env, 'TRUST_PROXY', 'false') === 'true',
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024),
    yamlParseTimeoutMs: Math.max(1, int(env, 'HELM_VALUES_PARSE_TIMEOUT_MS', 3_000)),
    mongodbUri: str(env, 'MONGODB_URI', 'mongodb://127.0.0.1:27017/ies'),
    auth: authConfig(env, authUrl),
    teams: {
      groupsClaim: optional(env, 'TEAMS_GROUPS_CLAIM'),
      groupsPrefix: str(env, 'TEAMS_GROUPS_PREFIX', '/ies/'),
    },
    rateLimit: rateLimitConfig(env),
    web: {
      uiDir: str(env, 'WEB_UI_DIR', path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../desktop/dist')),
      useRuntimeCatalog: str(env, 'USE_RUNTIME_CATALOG', 'true') !== 'false',
    },
    encryption: encryptionConfig(env),
    cloud: cloudConfig(env),
    jobs: jobsConfig(env),
    plan: {
      terraformBin: str(env, 'TERRAFORM_BIN', 'terraform'),
      cliConfigFile: optional(env, 'TERRAFORM_CLI_CONFIG'),
      pluginCacheDir: optional(env, 'TERRAFORM_PLUGIN_CACHE_DIR'),
      timeoutMs: Math.max(1000, int(env, 'PLAN_TIMEOUT_MS', 10 * 60_000)),
      outputCapBytes: Math.max(1024 * 1024, int(env, 'PLAN_OUTPUT_CAP_BYTES', 128 * 1024 * 1024)),
      concurrency: Math.max(1, int(env, 'PLAN_CONCURRENCY', 2)),
      driftSchedule: {
        scanEveryMs: Math.max(50, int(env, 'DRIFT_SCHEDULE_SCAN_MS', 60_000)),
        concurrency: Math.max(1, int(env, 'DRIFT_SCHEDULE_CONCURRENCY', 1)),
      },
    },
    templates: {
      dir: str(env, 'TEMPLATES_DIR', BUNDLED_TEMPLATES_DIR),
      repo: optional(env, 'TEMPLATES_REPO'),
      cacheDir: str(env, 'TEMPLATES_CACHE_DIR', path.join(os.tmpdir(), 'ies-templates-cache')),
    },
    generation: {
      trimDecoratorAttrs: str(env, 'TRIM_DECORATOR_ATTRS', '0') === '1',
      processorTimeoutMs: Math.max(1, int(env, 'PROCESSOR_GENERATE_TIMEOUT_MS', 120_000)),
    },
    catalog: catalogConfig(env),
    push: pushConfig(env),
    policies: {
      dir: optional(env, 'POLICIES_DIR'),
      opaPath: str(env, 'OPA_PATH', BUNDLED_OPA),
      cacheDir: str(env, 'POLICIES_CACHE_DIR', path.join(os.tmpdir(), 'ies-policies-cache')),
    },
    history: {
      retentionDays: int(env, 'HISTORY_RETENTION_DAYS', 365),
    },
    approvals: {
      expiryMs: Math.max(1000, int(env, 'APPROVAL_EXPIRY_MS', 24 * 3600_000)),
    },
    ai: aiConfig(env),
  }
  checkConfig(config, authUrl)
  return config
}

/** The identity provider and the clients it accepts (AUTH_*), the development users' passwords. */
function authConfig(env: Env, authUrl: string | undefined): Config['auth'] {
  return {
    url: authUrl?.replace(/\/+$/, ''),
    realm: str(env, 'AUTH_REALM', 'ies'),
    appClientId: str(env, 'AUTH_APP_CLIENT_ID', 'ies-app'),
    cliClientId: str(env, 'AUTH_CLI_CLIENT_ID', 'ies-cli'),
    cliClientSecret: str(env, 'AUTH_CLI_CLIENT_SECRET', 'ies-cli-dev-secret'),
    audience: optional(env, 'AUTH_AUDIENCE'),
    allowedClients: list(env, 'AUTH_ALLOWED_CLIENTS') ?? [
      str(env, 'AUTH_APP_CLIENT_ID', 'ies-app'),
      str(env, 'AUTH_CLI_CLIENT_ID', 'ies-cli'),
      'ies-device',
    ],
    jwksRefetchIntervalMs: int(env, 'AUTH_JWKS_REFETCH_INTERVAL_MS', 30_000),
    devUserPassword: str(env, 'DEV_USER_PASSWORD', 'dev-password'),
    devAdminPassword: str(env, 'DEV_ADMIN_PASSWORD', 'admin-password'),
  }
}

/** The per-address and per-user request limits (RATE_LIMIT_*), shared through REDIS_URL when set. */
function rateLimitConfig(env: Env): Config['rateLimit'] {
  return {
    ipMax: int(env, 'RATE_LIMIT_IP_MAX', 100),
    ipWindowMs: int(env, 'RATE_LIMIT_IP_WINDOW_MS', 15 * 60 * 1000),
    userMax: int(env, 'RATE_LIMIT_USER_MAX', 1000),
    userWindowMs: int(env, 'RATE_LIMIT_USER_WINDOW_MS', 60 * 60 * 1000),
    redisUrl: optional(env, 'REDIS_URL'),
  }
}

/** The key that encrypts cloud credentials and deploy keys, and the old keys still read. */
function encryptionConfig(env: Env): Config['encryption'] {
  return {
    key: optional(env, 'ENCRYPTION_KEY'),
    oldKeys: (optional(env, 'ENCRYPTION_KEYS') ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean),
    devKeyFile: str(env, 'ENCRYPTION_KEY_FILE', '.data/encryption.key'),
  }
}

/** Where cloud credentials are validated (the providers' endpoints, overridable for tests). */
function cloudConfig(env: Env): Config['cloud'] {
  return {
    awsEndpointUrl: optional(env, 'AWS_ENDPOINT_URL'),
    azureAuthorityHost: str(env, 'AZURE_AUTHORITY_HOST', 'https://login.microsoftonline.com').replace(/\/+$/, ''),
    gcpTokenUrl: str(env, 'GCP_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
    validateTimeoutMs: int(env, 'CREDENTIAL_VALIDATE_TIMEOUT_MS', 10_000),
  }
}

/** The job queue: concurrency, locks, polling, waiting for a job, retention. */
function jobsConfig(env: Env): Config['jobs'] {
  return {
    concurrency: Math.max(1, int(env, 'JOBS_CONCURRENCY', 8)),
    lockLifetimeMs: int(env, 'JOBS_LOCK_LIFETIME_MS', 60_000),
    processEveryMs: Math.max(50, int(env, 'JOBS_PROCESS_EVERY_MS', 5_000)),
    notify: str(env, 'JOBS_NOTIFY', 'true') !== 'false',
    process: str(env, 'JOBS_PROCESS', 'true') !== 'false',
    waitTimeoutMs: int(env, 'JOBS_WAIT_TIMEOUT_MS', 30_000),
    waitRecheckMs: Math.max(250, int(env, 'JOBS_WAIT_RECHECK_MS', 5_000)),
    retention: {
      keepPerEnvironment: Math.max(1, int(env, 'RETENTION_KEEP_PER_ENVIRONMENT', 20)),
      maxAgeMs: int(env, 'RETENTION_MAX_AGE_MS', 30 * 24 * 3600_000),
      sweepEveryMs: Math.max(1000, int(env, 'RETENTION_SWEEP_EVERY_MS', 3600_000)),
    },
  }
}

/** The catalog cache and the processor service it reads from. */
function catalogConfig(env: Env): Config['catalog'] {
  return {
    processorUrl: optional(env, 'PROCESSOR_URL')?.replace(/\/+$/, ''),
    processorToken: optional(env, 'PROCESSOR_SERVICE_TOKEN'),
    ttlMs: int(env, 'CATALOG_CACHE_TTL_MS', 5 * 60 * 1000),
    staleMs: int(env, 'CATALOG_STALE_MS', 24 * 60 * 60 * 1000),
    timeoutMs: int(env, 'CATALOG_TIMEOUT_MS', 5_000),
  }
}

/** Pushes: allowed hosts, the Git user and author, timeouts, the repository cache. */
function pushConfig(env: Env): Config['push'] {
  return {
    allowedHosts: (optional(env, 'PUSH_ALLOWED_HOSTS') ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    username: str(env, 'GIT_PUSH_USERNAME', 'x-access-token'),
    gitTimeoutMs: Math.max(1, int(env, 'GIT_TIMEOUT_MS', 30_000)),
    authorName: str(env, 'GIT_AUTHOR_NAME', 'IES'),
    authorEmail: str(env, 'GIT_AUTHOR_EMAIL', 'ies@localhost'),
    cacheDir: str(env, 'PUSH_CACHE_DIR', path.join(os.tmpdir(), 'ies-push-cache')),
  }
}

/** The assistant's model service (OpenAI-compatible). */
function aiConfig(env: Env): Config['ai'] {
  return {
    baseUrl: optional(env, 'AI_BASE_URL')?.replace(/\/+$/, ''),
    apiKey: optional(env, 'AI_API_KEY'),
    model: optional(env, 'AI_MODEL'),
    timeoutMs: Math.max(1, int(env, 'AI_TIMEOUT_MS', 30_000)),
  }
}

/** The settings that cannot stand together or are missing where required: production without AUTH_URL or ENCRYPTION_KEY, malformed keys, the AI settings. */
function checkConfig(config: Config, authUrl: string | undefined): void {
  if (config.env === 'production' && !authUrl) {
    throw new ConfigError('AUTH_URL is required in production (the embedded identity provider is for development)')
  }
  if (config.env === 'production' && !config.encryption.key) {
    throw new ConfigError('ENCRYPTION_KEY is required in production (32 bytes, base64)')
  }
  for (const [name, keys] of [
    ['ENCRYPTION_KEY', config.encryption.key ? [config.encryption.key] : []],
    ['ENCRYPTION_KEYS', config.encryption.oldKeys],
  ] as const) {
    if (keys.some((k) => !isKey(k))) throw new ConfigError(`${name} must be 32 bytes in base64 (openssl rand -base64 32)`)
  }
  if (config.ai.baseUrl && !/^https?:\/\/[^/]/.test(config.ai.baseUrl)) {
    throw new ConfigError('AI_BASE_URL must be an http(s) URL such as https://models.example/v1')
  }
  if (config.ai.baseUrl && !config.ai.model) {
    throw new ConfigError('AI_MODEL is required when AI_BASE_URL is set')
  }
}

/** The identity provider's base URL: the configured one, or this server itself (embedded provider). */
export function authBaseUrl(config: Config): string {
  return config.auth.url ?? config.publicUrl
}

/** The issuer every access token must carry, as Keycloak names it. */
export function issuerOf(config: Config): string {
  return `${authBaseUrl(config)}/realms/${config.auth.realm}`
}
