// The one place where configuration is read from the environment. Every variable has a default
// that works on a developer's machine and a row in the README's configuration table.

export interface Config {
  env: 'development' | 'test' | 'production'
  host: string
  port: number
  /** The address clients use to reach this server (also the embedded identity provider's base). */
  publicUrl: string
  logLevel: string
  trustProxy: boolean
  bodyLimitBytes: number
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
    devUserPassword: string
    devAdminPassword: string
  }
  rateLimit: {
    ipMax: number
    ipWindowMs: number
    userMax: number
    userWindowMs: number
    redisUrl: string | undefined
  }
}

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

function environment(env: Env): Config['env'] {
  const value = str(env, 'NODE_ENV', 'development')
  if (value === 'production' || value === 'test') return value
  return 'development'
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
    mongodbUri: str(env, 'MONGODB_URI', 'mongodb://127.0.0.1:27017/ies'),
    auth: {
      url: authUrl?.replace(/\/+$/, ''),
      realm: str(env, 'AUTH_REALM', 'ies'),
      appClientId: str(env, 'AUTH_APP_CLIENT_ID', 'ies-app'),
      cliClientId: str(env, 'AUTH_CLI_CLIENT_ID', 'ies-cli'),
      cliClientSecret: str(env, 'AUTH_CLI_CLIENT_SECRET', 'ies-cli-dev-secret'),
      audience: optional(env, 'AUTH_AUDIENCE'),
      devUserPassword: str(env, 'DEV_USER_PASSWORD', 'dev-password'),
      devAdminPassword: str(env, 'DEV_ADMIN_PASSWORD', 'admin-password'),
    },
    rateLimit: {
      ipMax: int(env, 'RATE_LIMIT_IP_MAX', 100),
      ipWindowMs: int(env, 'RATE_LIMIT_IP_WINDOW_MS', 15 * 60 * 1000),
      userMax: int(env, 'RATE_LIMIT_USER_MAX', 1000),
      userWindowMs: int(env, 'RATE_LIMIT_USER_WINDOW_MS', 60 * 60 * 1000),
      redisUrl: optional(env, 'REDIS_URL'),
    },
  }
  if (config.env === 'production' && !authUrl) {
    throw new ConfigError('AUTH_URL is required in production (the embedded identity provider is for development)')
  }
  return config
}

/** The identity provider's base URL: the configured one, or this server itself (embedded provider). */
export function authBaseUrl(config: Config): string {
  return config.auth.url ?? config.publicUrl
}

/** The issuer every access token must carry, as Keycloak names it. */
export function issuerOf(config: Config): string {
  return `${authBaseUrl(config)}/realms/${config.auth.realm}`
}
