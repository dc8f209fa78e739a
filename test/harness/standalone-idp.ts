// The identity provider alone on its own loopback port: the "external" provider of the tests.
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http'
import Fastify from 'fastify'
import {
  createIdentityProvider,
  identityProviderPlugin,
  type EmbeddedIdentityProvider,
  type IdentityProviderOptions,
  type SigningKey,
} from '../../server/src/idp/index.ts'

export interface StandaloneIdentityProviderOptions extends Omit<IdentityProviderOptions, 'issuerBaseUrl'> {
  /** Default 127.0.0.1. */
  host?: string
  /** Default 0 (a free port). */
  port?: number
  /** Default `http://{host}:{port}` once listening. */
  issuerBaseUrl?: string
}

export interface RunningIdentityProvider {
  /** `{auth_url}`: the base without the realm path. */
  authUrl: string
  issuer: string
  realm: string
  identityProvider: EmbeddedIdentityProvider
  /** Adds a new signing key (new `kid`) that signs every token from now on. */
  rotateKeys(): SigningKey
  close(): Promise<void>
}

export async function startIdentityProvider(opts: StandaloneIdentityProviderOptions): Promise<RunningIdentityProvider> {
  const host = opts.host ?? '127.0.0.1'
  // The issuer holds the port: listen first, then build the provider and hand the server to Fastify.
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const authUrl = opts.issuerBaseUrl ?? `http://${host}:${port}`
  const identityProvider = createIdentityProvider({ ...opts, issuerBaseUrl: authUrl })
  const app = Fastify({
    logger: false,
    serverFactory: (handler) => server.on('request', handler),
  })
  await app.register(identityProviderPlugin, { identityProvider })
  await app.ready()
  return {
    authUrl,
    issuer: identityProvider.issuer,
    realm: identityProvider.options.realm,
    identityProvider,
    rotateKeys: () => identityProvider.rotateKeys(),
    async close() {
      await app.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
