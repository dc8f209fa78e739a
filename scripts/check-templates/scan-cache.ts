// A content-addressed store of scanner results: what checkov, tflint, `terraform fmt -check` or
// `terraform validate` said about a folder, keyed by a SHA-256 of everything that decides it (the
// path and content of every file under the folder, symbolic links as their target text, the tool's
// version, its arguments and settings). A second run over the same content reads the stored result
// instead of starting the tool; a changed byte in any file gives another key.
//
// Where: the user's cache folder, `$XDG_CACHE_HOME/ies/scans` (`~/.cache/ies/scans` by default), as
// Go's build cache or npm's: outside every checkout, so a fresh clone on the same machine (CI's
// warm run), another worktree or a copy of templates/ in a temporary folder finds what was scanned
// before, and only its owner can write there. One gzipped JSON file per key, written to a
// temporary name and renamed into place, so processes running side by side never read half a file
// (two that miss the same key at once both run the tool, and one rename wins). Bounded: past
// MAX_ENTRIES files the least recently used are removed (a hit refreshes a file's time).
//
// `IES_SCAN_CACHE=off` turns it off (every run starts the tools); `IES_SCAN_CACHE=<folder>` keeps
// the store there instead.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs'
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { gunzip, gzip } from 'node:zlib'

/** Files kept at most; an entry is a few to a hundred kilobytes (checkov's passed checks of a whole gate matrix), so a full store is tens of megabytes. */
export const MAX_ENTRIES = 400

/** The store's folder, or null when `IES_SCAN_CACHE` turns it off. */
export function scanCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const setting = (env.IES_SCAN_CACHE ?? '').trim()
  if (/^(off|0|false|no)$/i.test(setting)) return null
  if (setting) return path.resolve(setting)
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'ies', 'scans')
}

/**
 * A digest of a folder's content: every file's path and bytes, every symbolic link's path and
 * target, in path order. Null when a link leads out of the folder (its content would not be in
 * the digest), so nothing is cached for it.
 */
export async function folderDigest(dir: string): Promise<string | null> {
  // Synchronous reads: a few hundred small files, several times quicker than a promise per call
  // (a script's event loop waits for the scanners, not for this).
  const root = path.resolve(dir)
  const hash = createHash('sha256')
  const walk = (rel: string): boolean => {
    const entries = readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name
      const full = path.join(root, relPath)
      if (entry.isSymbolicLink()) {
        const target = readlinkSync(full)
        const resolved = path.resolve(path.dirname(full), target)
        if (resolved !== root && !resolved.startsWith(root + path.sep)) return false
        hash.update(`L\0${relPath}\0${target}\0`)
      } else if (entry.isDirectory()) {
        hash.update(`D\0${relPath}\0`)
        if (!walk(relPath)) return false
      } else if (entry.isFile()) {
        const executable = statSync(full).mode & 0o111 ? 'x' : '-'
        hash.update(`F\0${relPath}\0${executable}\0`).update(readFileSync(full)).update('\0')
      }
    }
    return true
  }
  return walk('') ? hash.digest('hex') : null
}

/** Tool runs of this process: answered from the store (`reused`) or by the tool (`ran`). Reports print it. */
export const storeUse = { reused: 0, ran: 0 }

/** What a tool's result depends on besides the folder: its version, arguments, settings. */
export type KeyParts = readonly (string | number | boolean | null | undefined)[]

/**
 * The stored result for (`parts`, the content of `dirs`), or `run`'s, stored when it says `keep`
 * (a tool's failure, whose message may name a temporary path, is never stored).
 */
export async function cachedRun<T>(parts: KeyParts, dirs: readonly string[], run: () => Promise<{ value: T; keep: boolean }>): Promise<T> {
  const store = scanCacheDir()
  if (!store) return (await run()).value
  const key = await cacheKey(parts, dirs)
  if (!key) return (await run()).value
  const file = path.join(store, `${key}.json.gz`)
  try {
    const value = JSON.parse((await promisify(gunzip)(await readFile(file))).toString('utf8')) as { result: T }
    const now = new Date()
    await utimes(file, now, now).catch(() => {})
    storeUse.reused++
    return value.result
  } catch {
    // not stored yet (or unreadable: run again and store anew)
  }
  const { value, keep } = await run()
  storeUse.ran++
  if (!keep) return value
  const text = JSON.stringify({ result: value })
  await save(store, file, text)
  // what a later run reads back (no `undefined` members): the same whether stored now or before
  return (JSON.parse(text) as { result: T }).result
}

async function cacheKey(parts: KeyParts, dirs: readonly string[]): Promise<string | null> {
  const hash = createHash('sha256').update(JSON.stringify(parts))
  for (const dir of dirs) {
    const digest = await folderDigest(dir)
    if (!digest) return null
    hash.update(`\0${digest}`)
  }
  return hash.digest('hex')
}

async function save(store: string, file: string, text: string): Promise<void> {
  try {
    await mkdir(store, { recursive: true, mode: 0o700 })
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    await writeFile(temp, await promisify(gzip)(text))
    await rename(temp, file)
    await prune(store)
  } catch {
    // a store that cannot be written (read-only, full) only costs the next run its tool start
  }
}

/** Removes the least recently used entries past MAX_ENTRIES (and temporary files older than an hour). */
export async function prune(store: string, max = MAX_ENTRIES): Promise<void> {
  const names = await readdir(store)
  if (names.length <= max) return
  const entries = await Promise.all(
    names.map(async (name) => ({ name, time: (await stat(path.join(store, name)).catch(() => null))?.mtimeMs ?? 0 })),
  )
  const hour = Date.now() - 3_600_000
  const done = entries.filter((e) => e.name.endsWith('.json.gz')).sort((a, b) => b.time - a.time)
  const stale = [...done.slice(max), ...entries.filter((e) => e.name.endsWith('.tmp') && e.time < hour)]
  await Promise.all(stale.map((e) => rm(path.join(store, e.name), { force: true })))
}

/**
 * checkov's installation: the name and version of every package of its Python environment (their
 * metadata folders; `checkov --version` loads every check, seconds), its parsers included.
 */
export function checkovInstallation(checkovBin: string): string {
  const lib = path.join(path.dirname(path.dirname(checkovBin)), 'lib')
  const packages: string[] = []
  for (const python of existsSync(lib) ? readdirSync(lib) : []) {
    const site = path.join(lib, python, 'site-packages')
    if (existsSync(site)) packages.push(...readdirSync(site).filter((n) => n.endsWith('.dist-info')))
  }
  return packages.some((n) => n.startsWith('checkov-')) ? packages.sort().join(' ') : `unknown ${checkovBin}`
}

/** Settings in the environment a tool reads (checkov's CKV_*, tflint's TFLINT_*, Terraform's TF_*). */
export function envSettings(env: NodeJS.ProcessEnv, pattern: RegExp): string {
  return Object.entries(env)
    .filter(([k]) => pattern.test(k))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')
}
