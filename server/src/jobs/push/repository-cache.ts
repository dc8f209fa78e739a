// The customer repositories a push fetches, kept between pushes (a bare repository per URL and
// credentials under the system's temporary folder, readable by the server's user only; another
// deploy key never sees what one fetched): the next fetch of a branch tells the server which commit it has
// (isomorphic-git sends the local branch as a `have`), so only what is new is downloaded, not the
// branch's whole tree again. In a repository with 10,000 files that fetch was most of a push's time
// (docs/internals/push-benchmark.md).
//
// One push at a time uses a cache: in this process a queue per cache, between processes a lock
// folder (`<cache>.lock`, made atomically); a push that finds the lock held by another process works
// in a temporary repository instead, as does every push when the cache cannot be made. A lock older
// than STALE_LOCK_MS is a crashed process's and is taken over. A cache with more than MAX_PACKS packs
// (one per fetch) starts again empty, and so does one that a push failed in for a reason other than
// the job's (JobFailure): it may be damaged. A cache unused for MAX_IDLE_MS is removed (looked for
// at most once every SWEEP_EVERY_MS, when a push starts).
import { createHash } from 'node:crypto'
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { initBare } from '@ies/processor-lib/git-objects'
import { JobFailure } from '../queue/errors.ts'

export const CACHE_ROOT = path.join(os.tmpdir(), 'ies-push-cache')
export const MAX_PACKS = 50
export const STALE_LOCK_MS = 60 * 60_000
export const MAX_IDLE_MS = 7 * 24 * 3600_000
const SWEEP_EVERY_MS = 3600_000

const queues = new Map<string, Promise<unknown>>()
let lastSweep = 0

/** The cache folder of a repository as reached with these credentials. */
export function cacheDirOf(url: string, auth: { username: string; password: string }): string {
  const key = createHash('sha256').update(`${url}\u0000${auth.username}\u0000${auth.password}`).digest('hex')
  return path.join(CACHE_ROOT, key.slice(0, 32))
}

/** Runs `work` with a bare repository for `url` and `auth`: its cache when it can have it, else a temporary one. */
export async function withRepository<T>(
  url: string,
  auth: { username: string; password: string },
  work: (gitdir: string) => Promise<T>,
): Promise<T> {
  if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
    lastSweep = Date.now()
    void sweep().catch(() => {})
  }
  const dir = cacheDirOf(url, auth)
  const turn = (queues.get(dir) ?? Promise.resolve()).catch(() => {}).then(() => cached(dir, work))
  queues.set(dir, turn)
  try {
    return await turn
  } finally {
    if (queues.get(dir) === turn) queues.delete(dir)
  }
}

async function cached<T>(dir: string, work: (gitdir: string) => Promise<T>): Promise<T> {
  const lock = `${dir}.lock`
  if (!(await takeLock(lock))) return temporary(work)
  try {
    const packs = await readdir(path.join(dir, 'objects', 'pack')).catch(() => [])
    const ready = await stat(path.join(dir, 'HEAD')).then(
      () => true,
      () => false,
    )
    if (!ready || packs.filter((f) => f.endsWith('.pack')).length > MAX_PACKS) {
      await rm(dir, { recursive: true, force: true })
      await mkdir(dir, { recursive: true })
      await initBare(dir)
    }
    try {
      const result = await work(dir)
      await utimes(dir, new Date(), new Date())
      return result
    } catch (err) {
      if (!(err instanceof JobFailure)) await rm(dir, { recursive: true, force: true })
      throw err
    }
  } finally {
    await rm(lock, { recursive: true, force: true })
  }
}

/**
 * Whether the cache folder is this user's and closed to others (the temporary folder is shared:
 * another user could have made it first); when not, pushes use temporary repositories.
 */
async function rootIsOurs(): Promise<boolean> {
  await mkdir(CACHE_ROOT, { recursive: true, mode: 0o700 }).catch(() => {})
  const root = await lstat(CACHE_ROOT).catch(() => null)
  if (!root?.isDirectory() || root.uid !== process.getuid?.()) return false
  if ((root.mode & 0o077) !== 0) await chmod(CACHE_ROOT, 0o700)
  return true
}

async function takeLock(lock: string): Promise<boolean> {
  if (!(await rootIsOurs())) return false
  try {
    await mkdir(lock)
    return true
  } catch {
    const since = await stat(lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    )
    if (since < STALE_LOCK_MS) return false
    await rm(lock, { recursive: true, force: true })
    return mkdir(lock).then(
      () => true,
      () => false,
    )
  }
}

async function temporary<T>(work: (gitdir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-push-'))
  try {
    await initBare(dir)
    return await work(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Removes the caches (and stale locks) not used for MAX_IDLE_MS; a cache in use has a fresh lock. */
async function sweep(): Promise<void> {
  for (const name of await readdir(CACHE_ROOT).catch(() => [])) {
    const entry = path.join(CACHE_ROOT, name)
    const cache = name.endsWith('.lock') ? entry.slice(0, -'.lock'.length) : entry
    const idle = await stat(entry).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    )
    if (idle < MAX_IDLE_MS || (!name.endsWith('.lock') && !(await takeLock(`${cache}.lock`)))) continue
    await rm(entry, { recursive: true, force: true })
    if (!name.endsWith('.lock')) await rm(`${cache}.lock`, { recursive: true, force: true })
  }
}
