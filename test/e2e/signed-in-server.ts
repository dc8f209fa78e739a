// An IES server at a known loopback address whose identity provider is a real one on its own port
// (the embedded provider, as the external one at AUTH_URL), so that the web UI signs in by the real
// authorization-code flow with PKCE: the provider lists the UI's redirect URI and its token
// endpoint allows CORS from it.
import net from 'node:net'
import { buildApp } from '@ies/server'
import { loadConfig } from '@ies/server/config'
import type { Page } from 'playwright-core'
import { startTestDatabase } from '../harness/database.ts'
import { startTestIdentityProvider, TEST_PASSWORDS } from '../harness/identity.ts'

interface Teardown {
  teardown(fn: () => unknown): void
}

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

export async function startServerWithProvider(t: Teardown, env: Record<string, string> = {}) {
  const port = await freePort()
  const idp = await startTestIdentityProvider({ appRedirectUris: [`http://127.0.0.1:${port}/`] })
  t.teardown(() => idp.close())
  const db = await startTestDatabase(t)
  const config = loadConfig({
    NODE_ENV: 'test',
    MONGODB_URI: db.uri,
    AUTH_URL: idp.authUrl,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_IP_MAX: '1000000',
    RATE_LIMIT_USER_MAX: '1000000',
    JOBS_LOCK_LIFETIME_MS: '10000',
    ...env,
  })
  const app = await buildApp({ config, logger: false })
  await app.listen({ host: '127.0.0.1', port })
  t.teardown(() => app.close())
  return { url: config.publicUrl, idp }
}

/** The provider's own sign-in form, as a person fills it in; back in the app when it answers. */
export async function signInAtProvider(page: Page, appUrl: string, user: keyof typeof TEST_PASSWORDS = 'dev') {
  await page.locator('input[name="username"]').fill(user)
  await page.locator('input[name="password"]').fill(TEST_PASSWORDS[user])
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(appUrl)),
    page
      .locator('form')
      .first()
      .evaluate((f) => (f as HTMLFormElement).requestSubmit()),
  ])
}
