/** The processor service's configuration, read from environment variables in this one place. */

export interface ServiceConfig {
  /** PROCESSOR_SERVICE_TOKEN: required; the value callers send in X-Service-Token. */
  token: string
  /** PORT (default 8000) and HOST (default 127.0.0.1; set 0.0.0.0 in a container). */
  port: number
  host: string
  /** PROCESSOR_TEMPLATES_ROOT (default ./templates): POST /process only reads folders inside it. */
  templatesRoot: string
  /** PROCESSOR_CATALOG_DIR (default: the templates root): the tree GET /catalog extracts from. */
  catalogDir: string
  /** TRIM_DECORATOR_ATTRS=1: strip decorator attribute tails in every output. */
  trimDecoratorAttrs: boolean
  /** PROCESSOR_MAX_ARCHIVE_BYTES (default 20 MiB): largest uploaded zip. */
  maxArchiveBytes: number
  /** PROCESSOR_MAX_FILES (default 2000): most files in an uploaded or cloned tree. */
  maxFiles: number
  /** PROCESSOR_MAX_TREE_BYTES (default 100 MiB): most uncompressed bytes of an uploaded tree. */
  maxTreeBytes: number
  /** PROCESSOR_ALLOWED_HOSTS (comma-separated, default none): hosts on loopback/private networks that git routes may reach. */
  allowedHosts: string[]
  /** PROCESSOR_GIT_TIMEOUT_MS (default 30 s): a Git server that sends nothing this long fails the request. */
  gitTimeoutMs: number
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`)
  return n
}

export function readServiceConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const templatesRoot = env.PROCESSOR_TEMPLATES_ROOT || 'templates'
  return {
    token: env.PROCESSOR_SERVICE_TOKEN ?? '',
    port: int(env, 'PORT', 8000),
    host: env.HOST || '127.0.0.1',
    templatesRoot,
    catalogDir: env.PROCESSOR_CATALOG_DIR || templatesRoot,
    trimDecoratorAttrs: env.TRIM_DECORATOR_ATTRS === '1',
    maxArchiveBytes: int(env, 'PROCESSOR_MAX_ARCHIVE_BYTES', 20 * 1024 * 1024),
    maxFiles: int(env, 'PROCESSOR_MAX_FILES', 2000),
    maxTreeBytes: int(env, 'PROCESSOR_MAX_TREE_BYTES', 100 * 1024 * 1024),
    allowedHosts: (env.PROCESSOR_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    gitTimeoutMs: int(env, 'PROCESSOR_GIT_TIMEOUT_MS', 30_000),
  }
}
