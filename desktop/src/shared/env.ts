// The client environment script (`env.js`): runtime configuration read when the app starts, not
// baked into the build. The server writes it from its own configuration (server/src/web/env-script.ts,
// checked against this reader by a test); the desktop app renders its own from its settings.

export const ENV_GLOBAL = '__IES_ENV__'

/** The fields of env.js, as written in the script. */
export interface EnvScriptValues {
  API_URL: string
  AUTH_URL: string
  AUTH_REALM: string
  AUTH_CLIENT_ID: string
  USE_RUNTIME_CATALOG: boolean
}

/** The same configuration as the app uses it. */
export interface ClientEnv {
  apiUrl: string
  authUrl: string
  realm: string
  clientId: string
  useRuntimeCatalog: boolean
}

/** The body of env.js. JSON is escaped so that no value can close the script. */
export function renderEnvScript(values: EnvScriptValues): string {
  const json = JSON.stringify(values).replace(/</g, '\\u003c')
  return `window.${ENV_GLOBAL} = Object.freeze(${json});\n`
}

function flag(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string') return ['1', 'true', 'yes', 'on'].includes(value.toLowerCase())
  return fallback
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value.replace(/\/+$/, '') : fallback
}

/**
 * Read the script's values with defaults that work when the app is served by the server itself:
 * the API at `<origin>/api` and the embedded identity provider at the origin.
 */
export function readClientEnv(raw: unknown, origin: string): ClientEnv {
  const v = (raw && typeof raw === 'object' ? raw : {}) as Partial<Record<keyof EnvScriptValues, unknown>>
  return {
    apiUrl: text(v.API_URL, `${origin}/api`),
    authUrl: text(v.AUTH_URL, origin),
    realm: text(v.AUTH_REALM, 'ies'),
    clientId: text(v.AUTH_CLIENT_ID, 'ies-app'),
    useRuntimeCatalog: flag(v.USE_RUNTIME_CATALOG, true),
  }
}
