// Keeps the session across restarts: the token set, encrypted with Electron's safeStorage (the OS
// keychain / DPAPI / libsecret), in one file of the app's data folder. Without OS encryption the
// tokens are kept in memory only. The encryption is injected so the store is tested in Node.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { TokenSet, TokenStore } from '@ies/api'

export interface StringEncryption {
  isEncryptionAvailable(): boolean
  encryptString(plain: string): Buffer
  decryptString(encrypted: Buffer): string
}

export function encryptedTokenStore(file: string, encryption: StringEncryption): TokenStore {
  let memory: TokenSet | null = null
  return {
    async load() {
      if (memory) return memory
      if (!encryption.isEncryptionAvailable()) return null
      try {
        memory = JSON.parse(encryption.decryptString(await readFile(file))) as TokenSet
        return memory
      } catch {
        return null
      }
    },
    async save(tokens) {
      memory = tokens
      if (!encryption.isEncryptionAvailable()) return
      await mkdir(path.dirname(file), { recursive: true })
      await writeFile(file, encryption.encryptString(JSON.stringify(tokens)), { mode: 0o600 })
    },
    async clear() {
      memory = null
      await rm(file, { force: true })
    },
  }
}
