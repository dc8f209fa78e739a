// Reading the client environment script (`env.js`, its fields and writer in @ies/api/env-script):
// the server writes it from its own configuration (server/src/web/env-script.ts, checked against this
// reader by a test); the desktop app renders its own from its settings.
import type { EnvScriptValues } from '@ies/api/env-script'

/** The same configuration as the app uses it. */
export interface ClientEnv {
  apiUrl: string
  authUrl: string
  realm: string
  clientId: string
  useRuntimeCatalog: boolean
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
