// One running IES server for a test file: its own database, an identity provider, and tokens for
// three users: `dev` and `other` (plain users) and `admin`. The server listens on loopback, so
// tests can use both app.inject and real HTTP.
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '@ies/server'
import { loadConfig, type Config } from '@ies/server/config'
import { startTestDatabase, type TestDatabase } from './database.ts'
import { startTokenIssuer, type TokenIssuer } from './token-issuer.ts'

export type TestUser = 'dev' | 'other' | 'admin'

const USERS: Record<TestUser, Record<string, unknown>> = {
  dev: {
    sub: '7d1c3f0e-2a4b-4c5d-8e9f-000000000001',
    preferred_username: 'dev',
    email: 'dev@example.com',
    realm_access: { roles: ['user'] },
  },
  other: {
    sub: '7d1c3f0e-2a4b-4c5d-8e9f-000000000002',
    preferred_username: 'other',
    email: 'other@example.com',
    realm_access: { roles: ['user'] },
  },
  admin: {
    sub: '7d1c3f0e-2a4b-4c5d-8e9f-000000000003',
    preferred_username: 'admin',
    email: 'admin@example.com',
    realm_access: { roles: ['user', 'admin'] },
    resource_access: { 'ies-app': { roles: ['environment-admin'] } },
  },
}

export interface TestApp {
  app: FastifyInstance
  url: string
  config: Config
  db: TestDatabase
  issuer: TokenIssuer
  /** A valid access token for a test user. */
  tokenFor(user: TestUser): string
  /** `{ authorization: 'Bearer …' }` for a test user. */
  auth(user: TestUser): { authorization: string }
}

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface TestAppOptions {
  /** Capture the server's log: pino writes its JSON lines here (logging is off without it). */
  logStream?: NodeJS.WritableStream
  /** Run on the app before its routes are added (`buildApp`'s `beforeRoutes`): a hook that sees every route. */
  beforeRoutes?: (app: FastifyInstance) => Promise<void>
}

export async function startTestApp(t: Teardown, env: Record<string, string> = {}, opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await startTestDatabase(t)
  const issuer = await startTokenIssuer()
  t.teardown(() => issuer.close())
  // Each app keeps the repositories its pushes fetch in a folder of its own: a Git server of another
  // test may have had the same loopback address.
  const pushCache = await mkdtemp(path.join(os.tmpdir(), 'ies-test-push-cache-'))
  t.teardown(() => rm(pushCache, { recursive: true, force: true }))
  const config = loadConfig({
    NODE_ENV: 'test',
    MONGODB_URI: db.uri,
    AUTH_URL: issuer.authUrl,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_IP_MAX: '1000000',
    RATE_LIMIT_USER_MAX: '1000000',
    // Agenda checks a running job every lockLifetime / 2 with a timer it never clears, which keeps a
    // test process alive that long after its last job (30 s with the default 60 s lifetime).
    JOBS_LOCK_LIFETIME_MS: '10000',
    PUSH_CACHE_DIR: pushCache,
    ...env,
  })
  const app = await buildApp({ config, logger: opts.logStream ? { stream: opts.logStream } : false, beforeRoutes: opts.beforeRoutes })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const tokenFor = (user: TestUser) => issuer.sign(USERS[user])
  return { app, url, config, db, issuer, tokenFor, auth: (user) => ({ authorization: `Bearer ${tokenFor(user)}` }) }
}
