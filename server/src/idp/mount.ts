// Mounts the embedded identity provider (server/src/idp) into the server when AUTH_URL is unset:
// issuer {PUBLIC_URL}/realms/{realm}, the configured clients and the two development users.
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { defaultDevUsers, identityProviderPlugin, loadOrCreateSigningKeys } from './index.ts'

export async function mountEmbeddedIdentityProvider(app: FastifyInstance, config: Config, keysFile?: string) {
  const { auth, publicUrl } = config
  await app.register(identityProviderPlugin, {
    issuerBaseUrl: publicUrl,
    realm: auth.realm,
    appClientId: auth.appClientId,
    appRedirectUris: [`${publicUrl}/`, `${publicUrl}/callback`],
    cliClientId: auth.cliClientId,
    cliClientSecret: auth.cliClientSecret,
    users: defaultDevUsers({ dev: auth.devUserPassword, admin: auth.devAdminPassword }),
    signingKeys: keysFile ? await loadOrCreateSigningKeys(keysFile) : undefined,
  })
}
