// Initialised Terraform data directories kept between plans, so that a repeated plan of an
// environment starts at `terraform plan`, as an engineer's second run at the terminal does, instead
// of paying `terraform init` (backend, modules, providers) every time.
//
// One warm directory per environment and "init fingerprint": the hash of what `terraform init`
// reads (every .tf file that holds a `terraform {}` block, a `module` call or a `provider` block,
// and the lock file), with the Terraform binary, its CLI settings and the endpoint. A change of
// service set, backend, provider version or module call is a new fingerprint, initialised afresh.
// The directory holds `data/` (Terraform's TF_DATA_DIR: the backend's settings, the modules'
// manifest, links to the providers in the mirror or plugin cache) and the lock file init wrote; it
// holds no secret (the credential only ever is in the Terraform process's environment) and no plan
// file: each plan still writes its tree and its plan file in a directory of its own, removed after.
// Plans read a warm directory at the same time; its first init runs once (others wait for it).
// At most WARM_DIRS are kept by a replica (least recently used removed); all are removed on stop.
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/** How many warm directories a replica keeps. */
export const WARM_DIRS = 64

/** A file of the tree as the fingerprint reads it. */
export interface FingerprintFile {
  path: string
  content: Buffer
}

/** What `terraform init` depends on in a file: Terraform settings, module calls, provider configurations. */
const INIT_BLOCK = /^\s*(terraform\s*\{|module\s+"|provider\s+")/m

/** The hash of what `terraform init` reads from the tree (`files`) and of `settings` (binary, CLI config, endpoint...). */
export function initFingerprint(files: readonly FingerprintFile[], settings: readonly (string | undefined)[]): string {
  const hash = createHash('sha256')
  for (const s of settings) hash.update(`${s ?? ''}\0`)
  const read = files
    .filter(
      (f) => path.basename(f.path) === '.terraform.lock.hcl' || (f.path.endsWith('.tf') && INIT_BLOCK.test(f.content.toString('utf8'))),
    )
    .sort((a, b) => a.path.localeCompare(b.path))
  for (const f of read) hash.update(`${f.path}\0${f.content.length}\0`).update(f.content)
  return hash.digest('hex').slice(0, 32)
}

/** A warm directory as a plan uses it. */
export interface WarmDir {
  /** Terraform's data directory (TF_DATA_DIR). */
  dataDir: string
  /** Where the lock file init wrote is kept. */
  lockFile: string
  /** Whether `terraform init` has succeeded in it. */
  ready: boolean
}

interface Entry extends WarmDir {
  dir: string
  users: number
  /** The running first init, awaited by the plans that come meanwhile. */
  initialising?: Promise<void>
}

export class WarmDirs {
  private root?: Promise<string>
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly limit = WARM_DIRS) {}

  /**
   * Runs `work` with the warm directory of `key` (environment and fingerprint); `init` is called,
   * once at a time per directory, when it has not been initialised yet (or `work` asks again, after
   * Terraform said init is needed). A failed init leaves the directory not ready.
   */
  async use<T>(
    key: string,
    init: (dir: WarmDir) => Promise<void>,
    work: (dir: WarmDir, reinit: () => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const entry = await this.entry(key)
    entry.users++
    const initialise = async (again: boolean) => {
      while (entry.initialising) await entry.initialising.catch(() => {})
      if (entry.ready && !again) return
      entry.ready = false
      entry.initialising = init(entry).then(() => {
        entry.ready = true
      })
      try {
        await entry.initialising
      } finally {
        entry.initialising = undefined
      }
    }
    try {
      await initialise(false)
      return await work(entry, () => initialise(true))
    } finally {
      entry.users--
      await this.trim()
    }
  }

  /** The warm directories kept, least recently used first. */
  list(): WarmDir[] {
    return [...this.entries.values()].map(({ dataDir, lockFile, ready }) => ({ dataDir, lockFile, ready }))
  }

  /** Removes every warm directory (the server stops). */
  async close(): Promise<void> {
    const root = this.root
    this.root = undefined
    this.entries.clear()
    if (root) await rm(await root, { recursive: true, force: true })
  }

  private async entry(key: string): Promise<Entry> {
    const found = this.entries.get(key)
    if (found) {
      // Most recently used last.
      this.entries.delete(key)
      this.entries.set(key, found)
      return found
    }
    this.root ??= mkdtemp(path.join(os.tmpdir(), 'ies-plan-warm-'))
    const dir = path.join(await this.root, createHash('sha256').update(key).digest('hex').slice(0, 24))
    await mkdir(path.join(dir, 'data'), { recursive: true, mode: 0o700 })
    const entry: Entry = { dir, dataDir: path.join(dir, 'data'), lockFile: path.join(dir, '.terraform.lock.hcl'), ready: false, users: 0 }
    const raced = this.entries.get(key)
    if (raced) return raced
    this.entries.set(key, entry)
    return entry
  }

  /** Drops the least recently used directories beyond the limit that no plan is using. */
  private async trim(): Promise<void> {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.limit) return
      if (entry.users > 0) continue
      this.entries.delete(key)
      await rm(entry.dir, { recursive: true, force: true })
    }
  }
}
