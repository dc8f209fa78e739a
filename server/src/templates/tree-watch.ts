// Watching a templates directory, so that its source (templates.ts) can skip its check while nothing
// can have changed: the tree's fingerprint and the templates commit cost a walk of the tree and a
// Git read, and every generation and catalog read asks. Linux inotify through Node's fs.watch, one
// NON-recursive watcher per directory (Node 20's recursive mode on Linux is a JavaScript walk of its
// own, not an inotify feature, and is not relied upon):
//
// - every directory of the tree: an edit, an added, removed or renamed file or directory, a chmod;
// - every ancestor of the tree, for the entry on the way to it and for `.git`: the tree moved or
//   replaced (a symbolic link switched to another release), a repository created or removed above it;
// - the Git repository holding it (templatesCommit reads HEAD and its ref): the git dir (HEAD,
//   packed-refs; a worktree's own and its common one), refs and every directory of refs/heads, where a
//   commit, a reset or a checkout moves the commit without touching the tree.
//
// Any event, and any watcher's error or close, ends the clean state; the next check (fingerprint and
// commit, as without watching) sets the watchers again on the directories there are then, before it
// looks, so a change made during a check leaves the state unclean. Watching is given up for good (the
// source checks on every call) where it cannot work: a directory that cannot be watched (the inotify
// limits: ENOSPC, EMFILE) or a network or FUSE filesystem, where a change made on another machine
// sends no event. Not seen either way: a write through a hard link outside the tree, a write through mmap.
import { watch, type FSWatcher } from 'node:fs'
import { readdir, readFile, stat, statfs } from 'node:fs/promises'
import path from 'node:path'

/** statfs types where a change made elsewhere (another client, a VM's host) sends no inotify event here. */
const REMOTE_FILESYSTEMS = new Set([
  0x6969, // NFS
  0x517b, // SMB
  0xff534d42, // CIFS
  0xfe534d42, // SMB2
  0x65735546, // FUSE: sshfs, virtiofs, Docker Desktop's file sharing
  0x01021997, // 9P: WSL, VM shares
  0x00c36400, // Ceph
  0x5346414f, // AFS
  0x01161970, // GFS2
  0x7461636f, // OCFS2
  0x0bd00bd0, // Lustre
  0x47504653, // GPFS
])

/**
 * Git dir entries that do not move HEAD's commit (`git status` alone rewrites the index), and `*.lock`:
 * the rename that ends a lock is an event of the final name.
 */
const GIT_NOISE = new Set(['index', 'FETCH_HEAD', 'ORIG_HEAD', 'COMMIT_EDITMSG'])

/** Whether an event about the entry `name` (null: unknown) of a watched directory may matter. */
type Counts = (name: string | null) => boolean

const everything: Counts = () => true
const gitEntries: Counts = (name) => name === null || !(GIT_NOISE.has(name) || name.endsWith('.lock'))

let delivered: Promise<void> | undefined

/**
 * Resolves once the events the kernel queued before the call have reached their watchers. Node reads
 * inotify in the event loop's poll phase and a call can come from that very phase (after an
 * I/O callback), so two turns: the first `setImmediate` runs in this turn's check phase, the second
 * in the next one's, after a poll. Callers share a wait while its first turn has not run yet.
 */
export function eventsDelivered(): Promise<void> {
  return (delivered ??= new Promise((resolve) =>
    setImmediate(() => {
      delivered = undefined
      setImmediate(resolve)
    }),
  ))
}

export class TreeWatch {
  /** Why watching was given up (the source then checks on every call). */
  disabled: string | undefined
  /** Events seen, ever. */
  private changes = 0
  /** `changes` when the last completed check began; -1: none holds. */
  private cleanAt = -1
  private live = new Set<FSWatcher>()

  /** `onGiveUp` hears once why watching was given up (not on `close`). */
  constructor(
    private readonly dir: string,
    private readonly onGiveUp?: (reason: string) => void,
  ) {}

  /** Nothing reported since a completed check began: its result still holds (once `eventsDelivered`). */
  get clean(): boolean {
    return this.cleanAt === this.changes
  }

  /**
   * Sets the watchers on the directories there are now, before the caller's check looks at them; its
   * result is the mark to pass to `checked` when that check has completed, undefined when nothing is
   * watched (every call checks). A directory missing (a race, a tree being replaced) is tried again
   * at the next check; any other failure gives watching up.
   */
  async arm(): Promise<number | undefined> {
    this.cleanAt = -1
    if (this.disabled) return undefined
    const mark = this.changes
    const previous = this.live
    this.live = new Set()
    try {
      await this.watchAll()
    } catch (err) {
      this.closeAll()
      const code = (err as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.giveUp(`cannot watch ${this.dir}: ${(err as Error).message}`)
      return undefined
    } finally {
      // Replaced after the new ones are set: a directory still watched keeps its inotify watch.
      for (const w of previous) w.close()
    }
    return this.disabled ? undefined : mark
  }

  /** The check that began at `mark` has completed: its result holds until the next event. */
  checked(mark: number | undefined): void {
    if (mark !== undefined && !this.disabled) this.cleanAt = mark
  }

  close(): void {
    this.disabled = 'closed'
    this.cleanAt = -1
    this.closeAll()
  }

  private closeAll(): void {
    const all = this.live
    this.live = new Set()
    for (const w of all) w.close()
  }

  private add(dir: string, counts: Counts): void {
    if (this.disabled) throw new Error(this.disabled)
    // persistent: false: a watcher does not keep the process alive.
    const w = watch(dir, { persistent: false })
    this.live.add(w)
    // Events of a watcher replaced or closed here are not counted: its directory was watched again
    // (or no longer matters) before the check that followed.
    const changed = () => {
      if (this.live.has(w)) this.changes++
    }
    w.on('change', (_type, name) => {
      if (counts(typeof name === 'string' ? name : null)) changed()
    })
    w.on('error', changed)
    w.on('close', changed)
  }

  private async watchAll(): Promise<void> {
    const dir = path.resolve(this.dir)
    await this.refuseRemote(dir)
    // The tree: each directory watched before it is read, so an entry added after the read is an event.
    const walk = async (d: string): Promise<void> => {
      this.add(d, everything)
      const entries = await readdir(d, { withFileTypes: true })
      await settled(entries.filter((e) => e.isDirectory() && e.name !== '.git').map((e) => walk(path.join(d, e.name))))
    }
    await walk(dir)
    let root: string | undefined
    for (let child = dir, parent = path.dirname(dir); ; child = parent, parent = path.dirname(parent)) {
      if (!root && (await exists(path.join(child, '.git')))) root = child // isomorphic-git's findRoot
      if (parent === child) break
      const entry = path.basename(child)
      this.add(parent, (name) => name === null || name === entry || name === '.git')
    }
    if (root) await this.watchRepository(root)
  }

  private async watchRepository(root: string): Promise<void> {
    const dotgit = path.join(root, '.git')
    const gitdir = (await stat(dotgit)).isDirectory() ? dotgit : path.resolve(root, gitFileTarget(await readFile(dotgit, 'utf8')))
    const common = await readFile(path.join(gitdir, 'commondir'), 'utf8').then(
      (text) => path.resolve(gitdir, text.trim()),
      () => gitdir,
    )
    await this.refuseRemote(gitdir)
    this.add(gitdir, gitEntries)
    if (common !== gitdir) this.add(common, gitEntries)
    // Below the git dir, what is missing needs no watcher: its creation is an event of its parent.
    const optional = async (f: () => Promise<void>) => {
      try {
        await f()
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
      }
    }
    const walk = async (d: string): Promise<void> => {
      this.add(d, gitEntries)
      const entries = await readdir(d, { withFileTypes: true })
      await settled(entries.filter((e) => e.isDirectory()).map((e) => optional(() => walk(path.join(d, e.name)))))
    }
    await optional(async () => this.add(path.join(common, 'refs'), gitEntries))
    await optional(() => walk(path.join(common, 'refs/heads')))
    // HEAD pointing outside refs/heads (rare): the directories of its ref.
    const head = await readFile(path.join(gitdir, 'HEAD'), 'utf8').catch(() => '')
    const ref = /^ref: (refs\/.+)$/m.exec(head)?.[1]
    if (ref && !ref.startsWith('refs/heads/')) {
      for (let d = path.posix.dirname(ref); d !== 'refs' && d !== '.'; d = path.posix.dirname(d)) {
        await optional(async () => this.add(path.join(common, d), gitEntries))
      }
    }
  }

  private async refuseRemote(dir: string): Promise<void> {
    const { type } = await statfs(dir)
    if (REMOTE_FILESYSTEMS.has(type)) this.giveUp(`${dir} is on a network or FUSE filesystem (type 0x${type.toString(16)})`)
  }

  private giveUp(reason: string): void {
    if (this.disabled) return
    this.disabled = reason
    this.onGiveUp?.(reason)
  }
}

/** Promise.all that waits for every walk: a walk still running after a failure would set watchers after `arm` has closed them. */
async function settled(walks: Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(walks)).find((r) => r.status === 'rejected')
  if (failed) throw failed.reason
}

function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  )
}

/** A `.git` file (worktree, submodule): `gitdir: <path>`. */
function gitFileTarget(text: string): string {
  const m = /^gitdir: (.+)$/m.exec(text)
  if (!m) throw Object.assign(new Error('a .git file without gitdir'), { code: 'ENOENT' })
  return m[1].trim()
}
