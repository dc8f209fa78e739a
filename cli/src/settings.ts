// Where the command line finds its server and identity provider: flags, then environment variables,
// then the config file (`config.json` in the user's config directory), then what the server itself
// announces in /env.js (its identity provider and realm), then the defaults of a development machine.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import envPaths from 'env-paths'

export const DEFAULT_SERVER = 'http://127.0.0.1:3000'
export const DEFAULT_REALM = 'ies'
/** The identity provider's public client for the device flow (docs/api.md, "Authentication and roles"). */
export const DEFAULT_DEVICE_CLIENT_ID = 'ies-device'

export interface GlobalFlags {
  server?: string
  authUrl?: string
  realm?: string
}

export interface ConfigFile {
  server?: string
  authUrl?: string
  realm?: string
}

export interface Settings {
  server: string
  /** `{server}/api` */
  apiUrl: string
  authUrl: string
  realm: string
  deviceClientId: string
  configDir: string
}

/** The user's config directory: `IES_CONFIG_DIR`, else the platform's (`~/.config/ies` on Linux). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.IES_CONFIG_DIR || envPaths('ies', { suffix: '' }).config
}

/** Creates the config directory readable by its owner only. */
export function ensureConfigDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
}

export function readJsonFile<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`${file} is not readable JSON (${(err as Error).message})`)
  }
}

export function readConfigFile(dir: string): ConfigFile {
  return readJsonFile<ConfigFile>(path.join(dir, 'config.json')) ?? {}
}

export function writeConfigFile(dir: string, config: ConfigFile): void {
  ensureConfigDir(dir)
  writeFileSync(path.join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 })
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

function checkUrl(value: string, what: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`${what} is not a URL: ${value}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`${what} must be http:// or https://: ${value}`)
  return trimSlash(url.href)
}

/** A mistake in how the command was called (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** What the server announces to its clients in /env.js (`AUTH_URL`, `AUTH_REALM`); undefined when it cannot be read. */
export async function discover(server: string): Promise<{ authUrl?: string; realm?: string } | undefined> {
  try {
    const res = await fetch(`${server}/env.js`, { signal: AbortSignal.timeout(10_000) })
    if (!res.ok) return undefined
    const json = /Object\.freeze\((\{[\s\S]*\})\)/.exec(await res.text())?.[1]
    if (!json) return undefined
    const values = JSON.parse(json) as Record<string, unknown>
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
    return { authUrl: text(values.AUTH_URL), realm: text(values.AUTH_REALM) }
  } catch {
    return undefined
  }
}

export async function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const dir = configDir(env)
  const file = readConfigFile(dir)
  const server = checkUrl(flags.server ?? env.IES_SERVER ?? file.server ?? DEFAULT_SERVER, 'The server URL')
  let authUrl = flags.authUrl ?? env.IES_AUTH_URL ?? file.authUrl
  let realm = flags.realm ?? env.IES_REALM ?? file.realm
  if (authUrl === undefined || realm === undefined) {
    const announced = await discover(server)
    authUrl ??= announced?.authUrl ?? server
    realm ??= announced?.realm ?? DEFAULT_REALM
  }
  return {
    server,
    apiUrl: `${server}/api`,
    authUrl: checkUrl(authUrl, 'The identity provider URL'),
    realm,
    deviceClientId: env.IES_DEVICE_CLIENT_ID || DEFAULT_DEVICE_CLIENT_ID,
    configDir: dir,
  }
}
