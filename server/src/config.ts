// The one place where configuration is read from the environment. Every variable has a default
// that works on a developer's machine and a row in docs/configuration.md. Each group of settings is
// read by a module of settings/ named after it (its variables, defaults and checks); this file puts
// them together (`loadConfig`) and reads the few that stand alone.
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigError, int, optional, str, type Env } from './settings/read.ts'
import { readAuth, readTeams, type AuthSettings, type TeamsSettings } from './settings/identity.ts'
import { checkEncryption, readEncryption, type EncryptionSettings } from './settings/encryption.ts'
import { readJobs, readPlan, type JobsSettings, type PlanSettings } from './settings/jobs.ts'
import {
  readCatalog,
  readGeneration,
  readTemplates,
  type CatalogSettings,
  type GenerationSettings,
  type TemplatesSettings,
} from './settings/templates.ts'
import { checkAi, readAi, readCloud, readPush, type AiSettings, type CloudSettings, type PushSettings } from './settings/outbound.ts'

export { ConfigError } from './settings/read.ts'
export { BUNDLED_TEMPLATES_DIR } from './settings/templates.ts'

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
  auth: AuthSettings
  teams: TeamsSettings
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
  encryption: EncryptionSettings
  cloud: CloudSettings
  jobs: JobsSettings
  plan: PlanSettings
  templates: TemplatesSettings
  generation: GenerationSettings
  catalog: CatalogSettings
  push: PushSettings
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
  ai: AiSettings
}

/** The `opa` binary `npm run provision` builds into this checkout, else the one on PATH. */
const PROVISIONED_OPA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.tools/bin/opa')
const BUNDLED_OPA = existsSync(PROVISIONED_OPA) ? PROVISIONED_OPA : 'opa'

function environment(env: Env): Config['env'] {
  const value = str(env, 'NODE_ENV', 'development')
  if (value === 'production' || value === 'test') return value
  return 'development'
}

export function loadConfig(env: Env = process.env): Config {
  const host = str(env, 'HOST', '127.0.0.1')
  const port = int(env, 'PORT', 3000)
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
    auth: readAuth(env),
    teams: readTeams(env),
    rateLimit: rateLimitConfig(env),
    web: {
      uiDir: str(env, 'WEB_UI_DIR', path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../desktop/dist')),
      useRuntimeCatalog: str(env, 'USE_RUNTIME_CATALOG', 'true') !== 'false',
    },
    encryption: readEncryption(env),
    cloud: readCloud(env),
    jobs: readJobs(env),
    plan: readPlan(env),
    templates: readTemplates(env),
    generation: readGeneration(env),
    catalog: readCatalog(env),
    push: readPush(env),
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
    ai: readAi(env),
  }
  checkConfig(config)
  return config
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

/** The settings that cannot stand together or are missing where required: production without AUTH_URL or ENCRYPTION_KEY, malformed keys, the AI settings. */
function checkConfig(config: Config): void {
  const production = config.env === 'production'
  if (production && !config.auth.url) {
    throw new ConfigError('AUTH_URL is required in production (the embedded identity provider is for development)')
  }
  checkEncryption(config.encryption, production)
  checkAi(config.ai)
}

/** The identity provider's base URL: the configured one, or this server itself (embedded provider). */
export function authBaseUrl(config: Config): string {
  return config.auth.url ?? config.publicUrl
}

/** The issuer every access token must carry, as Keycloak names it. */
export function issuerOf(config: Config): string {
  return `${authBaseUrl(config)}/realms/${config.auth.realm}`
}
