// The desktop app's runtime configuration: the same fields as env.js, from the environment
// (IES_API_URL, IES_AUTH_URL, IES_AUTH_REALM, IES_AUTH_CLIENT_ID, IES_USE_RUNTIME_CATALOG) or a
// settings.json in the app's data folder; the environment wins. The main process serves it to the
// renderer as its env.js.
import type { EnvScriptValues } from '@ies/api/env-script'
import { readClientEnv, type ClientEnv } from '../shared/env.ts'

export const DEFAULT_SERVER = 'http://127.0.0.1:3000'

export function desktopSettings(
  env: Record<string, string | undefined>,
  file: Partial<Record<keyof EnvScriptValues, unknown>> = {},
): ClientEnv {
  const server = (env.IES_SERVER_URL ?? (file as Record<string, unknown>).SERVER_URL ?? DEFAULT_SERVER) as string
  return readClientEnv(
    {
      ...file,
      ...(env.IES_API_URL ? { API_URL: env.IES_API_URL } : {}),
      ...(env.IES_AUTH_URL ? { AUTH_URL: env.IES_AUTH_URL } : {}),
      ...(env.IES_AUTH_REALM ? { AUTH_REALM: env.IES_AUTH_REALM } : {}),
      ...(env.IES_AUTH_CLIENT_ID ? { AUTH_CLIENT_ID: env.IES_AUTH_CLIENT_ID } : {}),
      ...(env.IES_USE_RUNTIME_CATALOG ? { USE_RUNTIME_CATALOG: env.IES_USE_RUNTIME_CATALOG } : {}),
    },
    server.replace(/\/+$/, ''),
  )
}

export function envScriptValuesOf(env: ClientEnv): EnvScriptValues {
  return {
    API_URL: env.apiUrl,
    AUTH_URL: env.authUrl,
    AUTH_REALM: env.realm,
    AUTH_CLIENT_ID: env.clientId,
    USE_RUNTIME_CATALOG: env.useRuntimeCatalog,
  }
}
