// What a deploy key can be. Pushes go over HTTP(S) (isomorphic-git), where the key is the Basic-auth
// password, so it must be an access token (a personal, project or repository access token, an app
// password): a non-empty string without whitespace, at most ACCESS_TOKEN_MAX_LENGTH characters. A PEM
// private key (an SSH deploy key) is still accepted and stored, but cannot authenticate an HTTPS
// push: the push job fails with a clear error instead of an authentication failure.
// The pattern and the length are the API contract's (@ies/api/schemas/environments).
import { PEM_PRIVATE_KEY } from '@ies/api/schemas/environments'

export function isPemPrivateKey(key: string): boolean {
  return new RegExp(`^${PEM_PRIVATE_KEY}`).test(key)
}

export const PEM_OVER_HTTPS_MESSAGE = 'An SSH deploy key cannot authenticate an HTTPS push; store an access token'
