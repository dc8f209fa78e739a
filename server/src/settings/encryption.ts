// Encryption at rest of stored secrets (server/src/core/crypto.ts): the current key, the older keys
// that still decrypt, and where development keeps a generated key. Keys are 32 bytes in base64.
import { ConfigError, list, optional, str, type Env } from './read.ts'

export interface EncryptionSettings {
  /** ENCRYPTION_KEY: the current key, 32 bytes in base64. Required in production. */
  key: string | undefined
  /** ENCRYPTION_KEYS: older keys (comma-separated base64) that still decrypt. */
  oldKeys: string[]
  /** Where development keeps a generated key when ENCRYPTION_KEY is unset. */
  devKeyFile: string
}

export function readEncryption(env: Env): EncryptionSettings {
  return {
    key: optional(env, 'ENCRYPTION_KEY'),
    oldKeys: list(env, 'ENCRYPTION_KEYS') ?? [],
    devKeyFile: str(env, 'ENCRYPTION_KEY_FILE', '.data/encryption.key'),
  }
}

/** ConfigError for no ENCRYPTION_KEY in production, or a key that is not 32 bytes in base64. */
export function checkEncryption(settings: EncryptionSettings, production: boolean): void {
  if (production && !settings.key) throw new ConfigError('ENCRYPTION_KEY is required in production (32 bytes, base64)')
  for (const [name, keys] of [
    ['ENCRYPTION_KEY', settings.key ? [settings.key] : []],
    ['ENCRYPTION_KEYS', settings.oldKeys],
  ] as const) {
    if (keys.some((k) => !isKey(k))) throw new ConfigError(`${name} must be 32 bytes in base64 (openssl rand -base64 32)`)
  }
}

/** A 256-bit key in standard base64. */
function isKey(value: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32
}
