// The embedded identity provider (development and tests), mounted at Keycloak's paths.
export { identityProviderPlugin, type IdentityProviderPluginOptions } from './plugin.ts'
export { createIdentityProvider, EmbeddedIdentityProvider } from './identity-provider.ts'
export { defaultDevUsers, type DevPasswords, type IdentityProviderOptions, type IdpUser } from './options.ts'
export { generateSigningKey, loadOrCreateSigningKeys, publicJwk, type SigningKey } from './signing-keys.ts'
export { serviceAccountId, serviceAccountUsername } from './claims.ts'
