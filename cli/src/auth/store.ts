// The stored logins: `credentials.json` in the config directory, readable and writable by its owner
// only (0600, in a 0700 directory), one refresh token per server. Written to a temporary file with
// that mode and renamed over the old one, so the file is never briefly readable by others or half written.
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ensureConfigDir, readJsonFile } from '../settings.ts'

export interface StoredLogin {
  authUrl: string
  realm: string
  clientId: string
  refreshToken: string
  /** Who logged in (preferred_username), for `ies login --status`-like messages; not a secret. */
  username?: string
}

interface CredentialsFile {
  logins: Record<string, StoredLogin>
}

export const CREDENTIALS_FILE = 'credentials.json'

const fileOf = (dir: string) => path.join(dir, CREDENTIALS_FILE)

function read(dir: string): CredentialsFile {
  const file = readJsonFile<CredentialsFile>(fileOf(dir))
  return file && typeof file.logins === 'object' && file.logins ? file : { logins: {} }
}

function write(dir: string, content: CredentialsFile): void {
  ensureConfigDir(dir)
  const file = fileOf(dir)
  if (Object.keys(content.logins).length === 0) {
    rmSync(file, { force: true })
    return
  }
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 })
  chmodSync(tmp, 0o600)
  renameSync(tmp, file)
}

export function readCredentials(dir: string, server: string): StoredLogin | undefined {
  return read(dir).logins[server]
}

export function saveCredentials(dir: string, server: string, login: StoredLogin): void {
  const content = read(dir)
  content.logins[server] = login
  write(dir, content)
}

export function removeCredentials(dir: string, server: string): StoredLogin | undefined {
  const content = read(dir)
  const login = content.logins[server]
  delete content.logins[server]
  write(dir, content)
  return login
}
