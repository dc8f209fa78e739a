// A benchmark client holds its access token for a minute, as a real client keeps one until it nears
// expiry (the test issuer's tokens last five minutes). Signing a fresh token for every request put an
// RSA signature (about a millisecond of the client's CPU) into every timed request, and made the
// server verify each token anew instead of finding it among those it verified.
type AuthHeader = { authorization: string }

export function heldToken(sign: () => AuthHeader, holdMs = 60_000): () => AuthHeader {
  let held: AuthHeader | undefined
  let signedAt = 0
  return () => {
    if (!held || Date.now() - signedAt > holdMs) {
      held = sign()
      signedAt = Date.now()
    }
    return held
  }
}
