// The customer repositories a push fetches, kept between pushes (a bare repository per URL and
// credentials under PUSH_CACHE_DIR, readable by the server's user only; another
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
import { JobFailure } from '../../core/job-failure.ts'

export const MAX_PACKS = 50
export const STALE_LOCK_MS = 60 * 60_000
export const MAX_IDLE_MS = 7 * 24 * 3600_000
const SWEEP_EVERY_MS = 3600_000

const queues = new Map<string, Promise<unknown>>()
/** When each cache root was last swept. */
const lastSweep = new Map<string, number>()

/** The cache folder (under `root`) of a repository as reached with these credentials. */
export function cacheDirOf(root: string, url: string, auth: { username: string; password: string }): string {
  const key = createHash('sha256').update(`${url}\u0000${auth.username}\u0000${auth.password}`).digest('hex')
  return path.join(root, key.slice(0, 32))
}

/**
 * Runs `work` with a bare repository for `url` and `auth`: its cache under `root` when it can have
 * it, else (no root, or the cache is busy or unusable) a temporary one.
 */
export async function withRepository<T>(
  root: string | undefined,
  url: string,
  auth: { username: string; password: string },
  work: (gitdir: string) => Promise<T>,
): Promise<T> {
  if (!root) return temporary(work)
  if (Date.now() - (lastSweep.get(root) ?? 0) > SWEEP_EVERY_MS) {
    lastSweep.set(root, Date.now())
    void sweep(root).catch(() => {})
  }
  const dir = cacheDirOf(root, url, auth)
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
  if (!(await takeLock(path.dirname(dir), lock))) return temporary(work)
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
async function rootIsOurs(root: string): Promise<boolean> {
  await mkdir(root, { recursive: true, mode: 0o700 }).catch(() => {})
  const found = await lstat(root).catch(() => null)
  if (!found?.isDirectory() || found.uid !== process.getuid?.()) return false
  if ((found.mode & 0o077) !== 0) await chmod(root, 0o700)
  return true
}

async function takeLock(root: string, lock: string): Promise<boolean> {
  if (!(await rootIsOurs(root))) return false
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
async function sweep(root: string): Promise<void> {
  for (const name of await readdir(root).catch(() => [])) {
    const entry = path.join(root, name)
    const cache = name.endsWith('.lock') ? entry.slice(0, -'.lock'.length) : entry
    const idle = await stat(entry).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    )
    if (idle < MAX_IDLE_MS || (!name.endsWith('.lock') && !(await takeLock(root, `${cache}.lock`)))) continue
    await rm(entry, { recursive: true, force: true })
    if (!name.endsWith('.lock')) await rm(`${cache}.lock`, { recursive: true, force: true })
  }
}
