// The client-side export (no credential fields) and the client environment script.
import t from 'tap'
import vm from 'node:vm'
import { parse } from 'yaml'
import { exportConfiguration, exportableConfiguration } from '../../../../../desktop/src/renderer/lib/environments/export-config.ts'
import { ENV_GLOBAL, renderEnvScript } from '@ies/api/env-script'
import { readClientEnv } from '../../../../../desktop/src/shared/env.ts'
import { loadConfig } from '../../../../../server/src/config.ts'
import { envScript } from '../../../../../server/src/web/env-script.ts'

const environment = {
  id: 'e1',
  name: 'dev',
  globalPrefix: 'acme',
  provider: 'aws' as const,
  region: 'eu-west-1',
  domain: '',
  status: 'pending',
  services: { rds: { enabled: true, multiAz: false } },
  terraformBackend: { bucket: 'b', key: 'k', useLockfile: true },
  gitRepository: { url: 'https://git.example.com/a.git', branch: 'main', hasDeployKey: true, deployKey: 'PRIVATE' },
  cloudCredentialId: 'c1',
  createdAt: '2025-01-01T00:00:00Z',
  updatedAt: '2025-01-01T00:00:00Z',
}

t.test('the export omits credential fields and server bookkeeping', async (t) => {
  const config = exportableConfiguration(environment)
  t.same(config, {
    name: 'dev',
    globalPrefix: 'acme',
    provider: 'aws',
    region: 'eu-west-1',
    domain: '',
    services: { rds: { enabled: true, multiAz: false } },
    terraformBackend: { bucket: 'b', key: 'k', useLockfile: true },
    gitRepository: { url: 'https://git.example.com/a.git', branch: 'main' },
  })
  for (const format of ['json', 'yaml'] as const) {
    const text = exportConfiguration(environment, format)
    t.notMatch(text, /PRIVATE|cloudCredentialId|deployKey|c1/, `${format}: no credentials`)
    t.same(format === 'json' ? JSON.parse(text) : parse(text), config, `${format} round-trips`)
  }
  t.match(exportConfiguration(environment, 'yaml'), /multiAz: false/, 'YAML keeps booleans typed')
  const pushed = {
    ...environment,
    lastPush: { jobId: 'j', commit: 'c', branch: 'main', templatesCommit: 't', pushedAt: '2026-01-01T00:00:00Z' },
    behind: { templates: true, configuration: false },
  }
  t.same(exportableConfiguration(pushed), config, "the repository's push record is not configuration")
  const read = { ...environment, role: 'owner', drift: { jobId: 'j', checkedAt: '2026-01-01T00:00:00Z', drifted: [] } }
  t.same(exportableConfiguration(read), config, "the caller's role and the last drift check are not configuration")
})

t.test('env.js: rendered by the server, read by the app', async (t) => {
  const script = renderEnvScript({
    API_URL: 'https://ies.example.com/api',
    AUTH_URL: 'https://id.example.com',
    AUTH_REALM: 'ies',
    AUTH_CLIENT_ID: 'ies-app',
    USE_RUNTIME_CATALOG: false,
  })
  const window: Record<string, unknown> = {}
  vm.runInNewContext(script, { window })
  t.same(readClientEnv(window[ENV_GLOBAL], 'https://ies.example.com'), {
    apiUrl: 'https://ies.example.com/api',
    authUrl: 'https://id.example.com',
    realm: 'ies',
    clientId: 'ies-app',
    useRuntimeCatalog: false,
  })
  t.same(
    readClientEnv(undefined, 'http://127.0.0.1:3000'),
    {
      apiUrl: 'http://127.0.0.1:3000/api',
      authUrl: 'http://127.0.0.1:3000',
      realm: 'ies',
      clientId: 'ies-app',
      useRuntimeCatalog: true,
    },
    'defaults: the server that served the app',
  )
  t.notMatch(
    renderEnvScript({ API_URL: '</script><script>', AUTH_URL: '', AUTH_REALM: '', AUTH_CLIENT_ID: '', USE_RUNTIME_CATALOG: true }),
    /<\/script>/,
  )
})

t.test("env.js: the server's writer and the app's reader agree (two modules, one shape)", async (t) => {
  const config = loadConfig({
    PUBLIC_URL: 'https://ies.example.com',
    AUTH_URL: 'https://id.example.com',
    AUTH_REALM: 'acme',
    AUTH_APP_CLIENT_ID: 'acme-app',
    USE_RUNTIME_CATALOG: 'false',
  })
  const window: Record<string, unknown> = {}
  vm.runInNewContext(envScript(config), { window })
  t.same(readClientEnv(window[ENV_GLOBAL], 'https://elsewhere.example.com'), {
    apiUrl: 'https://ies.example.com/api',
    authUrl: 'https://id.example.com',
    realm: 'acme',
    clientId: 'acme-app',
    useRuntimeCatalog: false,
  })
  const hostile = loadConfig({ PUBLIC_URL: 'https://ies.example.com', AUTH_REALM: '</script><script>alert(1)' })
  t.notMatch(envScript(hostile), /<\/script>/, 'no value closes the script')
})
