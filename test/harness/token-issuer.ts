// A bare token issuer for the JWT attack tests: an RSA key pair whose public half is served as a
// JWKS on loopback at Keycloak's certs path, and a signer that can forge any header and claims.
// Everything else authenticates with real tokens from the identity provider (harness/identity.ts).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createPrivateKey, createPublicKey, createSign, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto'

interface Key {
  kid: string
  privateKey: KeyObject
  publicKey: KeyObject
}

// Generating a 2048-bit RSA key takes about 0.2 s of CPU (up to 0.5 s), and almost every test file
// starts an issuer. So the test processes share their keys through a file in the temp folder: a
// process takes the file's keys in turn (its first issuer the first key, a rotation or a stranger's
// key the next), so the keys within one process all differ, and it generates and adds a key the
// file does not have yet. Each key gets a new kid every time it is taken.
const KEYS_FILE = path.join(os.tmpdir(), `ies-test-rsa-keys-${process.getuid?.() ?? 'user'}.json`)
let keysTaken = 0

function storedKeys(): string[] {
  try {
    const keys: unknown = JSON.parse(readFileSync(KEYS_FILE, 'utf8'))
    return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : []
  } catch {
    return []
  }
}

function newKey(): Key {
  const n = keysTaken++
  const stored = storedKeys()
  let pem = stored[n]
  if (pem === undefined) {
    pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string
    if (stored.length === n) {
      // Written whole and renamed: a process reading the file sees either list; a key two processes
      // add at once is kept by one of them.
      const temp = `${KEYS_FILE}.${process.pid}`
      writeFileSync(temp, JSON.stringify([...stored, pem]), { mode: 0o600 })
      renameSync(temp, KEYS_FILE)
    }
  }
  const privateKey = createPrivateKey(pem)
  return { kid: randomUUID(), privateKey, publicKey: createPublicKey(privateKey) }
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url')

export interface TokenIssuer {
  authUrl: string
  realm: string
  issuer: string
  /** The key the JWKS currently serves. */
  current: Key
  /** Sign claims (defaults: a valid 300 s token for `sub`) with the served key, or with any header/key. */
  sign(claims?: Record<string, unknown>, opts?: { header?: Record<string, unknown>; key?: Key; signature?: 'none' }): string
  /** Serve a new key from now on (the old one is dropped). */
  rotate(): Key
  /** How many times the JWKS was fetched. */
  fetches: number
  close(): Promise<void>
}

export async function startTokenIssuer(realm = 'ies'): Promise<TokenIssuer> {
  let current = newKey()
  const server = http.createServer((req, res) => {
    if (req.url === `/realms/${realm}/protocol/openid-connect/certs`) {
      issuer.fetches++
      const jwk = current.publicKey.export({ format: 'jwk' })
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ keys: [{ ...jwk, kid: current.kid, alg: 'RS256', use: 'sig' }] }))
      return
    }
    res.statusCode = 404
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const authUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const issuerUrl = `${authUrl}/realms/${realm}`
  const issuer: TokenIssuer = {
    authUrl,
    realm,
    issuer: issuerUrl,
    get current() {
      return current
    },
    fetches: 0,
    sign(claims = {}, opts = {}) {
      const now = Math.floor(Date.now() / 1000)
      const key = opts.key ?? current
      const header = { alg: 'RS256', typ: 'JWT', kid: key.kid, ...opts.header }
      const payload = {
        iss: issuerUrl,
        sub: randomUUID(),
        iat: now,
        exp: now + 300,
        typ: 'Bearer',
        azp: 'ies-app',
        preferred_username: 'forged',
        email: 'forged@example.com',
        ...claims,
      }
      const signingInput = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`
      if (opts.signature === 'none') return `${signingInput}.`
      const signature = createSign('RSA-SHA256').update(signingInput).sign(key.privateKey)
      return `${signingInput}.${b64url(signature)}`
    },
    rotate() {
      current = newKey()
      return current
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
  return issuer
}

export { newKey as generateSigningKey }
