// Encryption at rest of stored secrets: AES-256-GCM, a fresh 96-bit IV per value, the 128-bit auth
// tag, and the id of the key beside the ciphertext. The additional authenticated data binds a
// ciphertext to its record (purpose, record id, owner), so a value copied into another record, or
// altered in any way, fails to decrypt: decryption fails closed, it never returns a guess.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Config } from '../config.ts'

/** How a secret is stored: every part in base64, `kid` names the key that encrypted it. */
export interface EncryptedSecret {
  v: 1
  alg: 'A256GCM'
  kid: string
  iv: string
  tag: string
  data: string
}

export class DecryptionError extends Error {
  constructor(reason: string) {
    // Never carries the plaintext or the ciphertext.
    super(`Stored secret could not be decrypted: ${reason}`)
    this.name = 'DecryptionError'
  }
}

/** What a secret belongs to; the same three values must be given to decrypt it. */
export interface SecretContext {
  /** What the value is, e.g. `environment.deployKey`. */
  purpose: string
  /** The record's id. */
  recordId: string
  /** The owning user's id. */
  ownerId: string
}

function aadOf(ctx: SecretContext): Buffer {
  return Buffer.from(JSON.stringify([ctx.purpose, ctx.recordId, ctx.ownerId]), 'utf8')
}

/** A key's id: a short fingerprint, so stored values say which key they need without naming it. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('ies-key-id\0').update(key).digest('base64url').slice(0, 12)
}

export class KeyRing {
  readonly currentKeyId: string
  private readonly keys = new Map<string, Buffer>()

  /** `current` encrypts; `current` and every key in `old` decrypt. */
  constructor(current: Buffer, old: Buffer[] = []) {
    for (const key of [current, ...old]) {
      if (key.length !== 32) throw new Error('an AES-256 key is 32 bytes')
      this.keys.set(keyIdOf(key), key)
    }
    this.currentKeyId = keyIdOf(current)
  }

  encryptSecret(plaintext: string, ctx: SecretContext): EncryptedSecret {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv)
    cipher.setAAD(aadOf(ctx))
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return {
      v: 1,
      alg: 'A256GCM',
      kid: this.currentKeyId,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    }
  }

  decryptSecret(secret: EncryptedSecret, ctx: SecretContext): string {
    if (!secret || secret.v !== 1 || secret.alg !== 'A256GCM') throw new DecryptionError('unknown format')
    const key = this.keys.get(secret.kid)
    if (!key) throw new DecryptionError(`key ${String(secret.kid)} is not configured`)
    const iv = Buffer.from(String(secret.iv), 'base64')
    const tag = Buffer.from(String(secret.tag), 'base64')
    if (iv.length !== 12 || tag.length !== 16) throw new DecryptionError('malformed value')
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 })
      decipher.setAAD(aadOf(ctx))
      decipher.setAuthTag(tag)
      return Buffer.concat([decipher.update(Buffer.from(String(secret.data), 'base64')), decipher.final()]).toString('utf8')
    } catch {
      throw new DecryptionError('authentication failed')
    }
  }

  /** True when the value was encrypted under an older key (scripts/reencrypt.ts). */
  isStale(secret: EncryptedSecret): boolean {
    return secret.kid !== this.currentKeyId
  }

  /** The same plaintext under the current key, with a fresh IV. */
  reencryptSecret(secret: EncryptedSecret, ctx: SecretContext): EncryptedSecret {
    return this.encryptSecret(this.decryptSecret(secret, ctx), ctx)
  }
}

export function generateKey(): string {
  return randomBytes(32).toString('base64')
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

/** A test process without ENCRYPTION_KEY shares one random key (lost when the process ends). */
let testProcessKey: string | undefined

interface Warn {
  warn(obj: object, msg: string): void
}

/**
 * The key to encrypt with when ENCRYPTION_KEY is unset: in development one generated once into
 * `.data/` (with a warning), in tests a per-process key. Production never gets here (config.ts).
 */
function fallbackKey(config: Config, log?: Warn): string {
  if (config.env === 'test') return (testProcessKey ??= generateKey())
  if (config.env === 'production') throw new Error('ENCRYPTION_KEY is required in production')
  const file = path.resolve(REPO_ROOT, config.encryption.devKeyFile)
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, generateKey() + '\n', { mode: 0o600, flag: 'wx' })
    chmodSync(file, 0o600)
    log?.warn({ file }, 'ENCRYPTION_KEY is not set: generated a development key; set ENCRYPTION_KEY in production')
  } else {
    log?.warn({ file }, 'ENCRYPTION_KEY is not set: using the development key file')
  }
  return readFileSync(file, 'utf8').trim()
}

/** The key ring of a configuration; the app makes it once and shares it as `app.keyRing` (app.ts). */
export function keyRingOf(config: Config, log?: Warn): KeyRing {
  const current = config.encryption.key ?? fallbackKey(config, log)
  return new KeyRing(
    Buffer.from(current, 'base64'),
    config.encryption.oldKeys.map((k) => Buffer.from(k, 'base64')),
  )
}
