// The web UI's runtime environment script (`/env.js`), written by the server from its own
// configuration. The app (desktop/src/shared/env.ts) reads `window.__IES_ENV__` with these field
// names; test/desktop/export-and-env.test.ts runs this writer's script and that reader together, so
// the two sides cannot drift apart. The server imports nothing of the client.
import { authBaseUrl, type Config } from '../config.ts'

export const ENV_GLOBAL = '__IES_ENV__'

/** The fields of env.js, as the server writes them. */
export interface EnvScriptValues {
  API_URL: string
  AUTH_URL: string
  AUTH_REALM: string
  AUTH_CLIENT_ID: string
  USE_RUNTIME_CATALOG: boolean
}

export function envScriptValues(config: Config): EnvScriptValues {
  return {
    API_URL: `${config.publicUrl}/api`,
    AUTH_URL: authBaseUrl(config),
    AUTH_REALM: config.auth.realm,
    AUTH_CLIENT_ID: config.auth.appClientId,
    USE_RUNTIME_CATALOG: config.web.useRuntimeCatalog,
  }
}

/** The body of env.js. JSON is escaped so that no value can close the script. */
export function envScript(config: Config): string {
  const json = JSON.stringify(envScriptValues(config)).replace(/</g, '\\u003c')
  return `window.${ENV_GLOBAL} = Object.freeze(${json});\n`
}
