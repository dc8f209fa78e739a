// The web UI's runtime environment script (`/env.js`), written by the server from its own
// configuration. The app (desktop/src/shared/env.ts) reads `window.__IES_ENV__` with these field
// names (@ies/api/env-script); test/desktop/renderer/lib/environments/export-and-env.test.ts runs this writer's script and that
// reader together.
import { renderEnvScript, type EnvScriptValues } from '@ies/api/env-script'
import { authBaseUrl, type Config } from '../config.ts'

export function envScriptValues(config: Config): EnvScriptValues {
  return {
    API_URL: `${config.publicUrl}/api`,
    AUTH_URL: authBaseUrl(config),
    AUTH_REALM: config.auth.realm,
    AUTH_CLIENT_ID: config.auth.appClientId,
    USE_RUNTIME_CATALOG: config.web.useRuntimeCatalog,
  }
}

/** The body of env.js. */
export function envScript(config: Config): string {
  return renderEnvScript(envScriptValues(config))
}
