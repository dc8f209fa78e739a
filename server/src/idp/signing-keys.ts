// RSA signing keys of the embedded identity provider: generation, persistence for development, the
// public JWKS, and verification of the access tokens it signed (introspection, userinfo).
import { createPublicKey, createVerify, generateKeyPairSync, randomUUID, type JsonWebKey } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** A private RSA JWK with its `kid`, used with RS256. */
export type SigningKey = JsonWebKey & { kty: 'RSA'; kid: string; alg: 'RS256'; use: 'sig' }

export function generateSigningKey(): SigningKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return { ...privateKey.export({ format: 'jwk' }), kty: 'RSA', kid: randomUUID(), alg: 'RS256', use: 'sig' }
}

/** Reads `{ keys: [...] }` from `file`, or creates the file (mode 0600) with one new key. */
export async function loadOrCreateSigningKeys(file: string): Promise<SigningKey[]> {
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as { keys?: SigningKey[] }
    if (Array.isArray(stored.keys) && stored.keys.length > 0) return stored.keys
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const keys = [generateSigningKey()]
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, JSON.stringify({ keys }, null, 2), { mode: 0o600 })
  return keys
}

export function publicJwk(key: SigningKey): JsonWebKey & { kid: string } {
  return { kty: 'RSA', n: key.n, e: key.e, kid: key.kid, alg: 'RS256', use: 'sig' }
}

export type JwtPayload = Record<string, unknown> & { exp?: number; iat?: number; iss?: string; sub?: string }

/**
 * The payload of an RS256 JWT signed by one of `keys`, unexpired and from `issuer`; `undefined` otherwise.
 */
export function verifyJwt(token: string, keys: SigningKey[], issuer: string, now = Date.now() / 1000): JwtPayload | undefined {
  const parts = token.split('.')
  if (parts.length !== 3) return undefined
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: string; kid?: string }
    if (header.alg !== 'RS256') return undefined
    const key = keys.find((candidate) => candidate.kid === header.kid)
    if (!key) return undefined
    const verifier = createVerify('RSA-SHA256')
    verifier.update(`${parts[0]}.${parts[1]}`)
    if (!verifier.verify(createPublicKey({ key: publicJwk(key), format: 'jwk' }), Buffer.from(parts[2]!, 'base64url'))) {
      return undefined
    }
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as JwtPayload
    if (payload.iss !== issuer) return undefined
    if (typeof payload.exp !== 'number' || payload.exp <= now) return undefined
    return payload
  } catch {
    return undefined
  }
}

/** The payload of a JWT without any verification (to read what the provider itself just issued). */
export function decodeJwtPayload(token: string): JwtPayload | undefined {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as JwtPayload
  } catch {
    return undefined
  }
}
