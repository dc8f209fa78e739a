// The web UI's runtime configuration script (`env.js`), read when the app starts rather than baked
// into the build: the server writes it from its configuration, the desktop app from its settings,
// and the app reads `window.__IES_ENV__` (desktop/src/shared/env.ts).

export const ENV_GLOBAL = '__IES_ENV__'

/** The fields of env.js, as written in the script. */
export interface EnvScriptValues {
  API_URL: string
  AUTH_URL: string
  AUTH_REALM: string
  AUTH_CLIENT_ID: string
  USE_RUNTIME_CATALOG: boolean
}

/** The body of env.js. JSON is escaped so that no value can close the script. */
export function renderEnvScript(values: EnvScriptValues): string {
  const json = JSON.stringify(values).replace(/</g, '\\u003c')
  return `window.${ENV_GLOBAL} = Object.freeze(${json});\n`
}
