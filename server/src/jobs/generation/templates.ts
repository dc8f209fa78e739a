// Where a generation reads its templates: the TEMPLATES_DIR tree (default: the bundled `templates/`),
// or TEMPLATES_REPO, a Git repository whose `main` branch is used unpinned: every call asks the
// remote for the newest commit (isomorphic-git) and fetches it into a cached bare clone when it is new.
import { mkdir } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import path from 'node:path'
import { readTree, templatesCommit, type InputFile } from '@ies/processor-lib'
import { treeFingerprint } from './tree-fingerprint.ts'
import { eventsDelivered, TreeWatch } from './tree-watch.ts'
import { fetchBranch, initBare, readCommitFiles } from '@ies/processor-lib/git-objects'

export interface Templates {
  commit: string
  inputs: InputFile[]
}

export interface TemplatesSource {
  /** Where the templates come from, for logs and the job result (a path or a URL without credentials). */
  readonly origin: string
  load(): Promise<Templates>
  /** Ends what the source keeps running (a directory source's watchers); the server calls it when it closes. */
  close?(): void
}

export const TEMPLATES_BRANCH = 'main'

/**
 * `check` shared by concurrent callers: a caller joins a check that started after it asked (so it
 * sees every change made before its request), otherwise waits for the running one and starts the next.
 * Concurrent generations so take the templates' fingerprint, or ask the remote, once instead of each.
 */
function coalesced<T>(check: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined
  let queued: Promise<T> | undefined
  const start = () => (running = check().finally(() => (running = undefined)))
  return () => {
    if (!running) return start()
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined
        return start()
      })
    return queued
  }
}

/**
 * A repository URL without its user and password, and those apart (TEMPLATES_REPO may carry them:
 * they are sent as credentials, never shown in a message, a log line or a URL that gets logged).
 */
export function splitCredentials(url: string): { url: string; username?: string; password?: string } {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { url }
  }
  if (!parsed.username && !parsed.password) return { url }
  const username = decodeURIComponent(parsed.username)
  const password = decodeURIComponent(parsed.password)
  parsed.username = ''
  parsed.password = ''
  return { url: parsed.toString(), username, password }
}

/**
 * A templates directory. A template change is live for the next generation: a check takes the
 * tree's fingerprint (each file's path, size, mtime, ctime and inode, without reading it) and reads
 * the files again only when it differs from the last read. The commit (processor-lib's
 * templatesCommit: the last commit that changed the directory, with a content marker while it has
 * uncommitted changes) is taken from the files as read; with unchanged files only a commit in the
 * repository can change it, which a check looks at too (the walk is done once per HEAD).
 * The check is skipped while the tree and its repository are watched (tree-watch.ts) and nothing has
 * been reported since the last one began; where they cannot be watched (`watch: false`, a network
 * filesystem, the inotify limits), every call checks. Concurrent calls share a check (`coalesced`).
 */
export function directorySource(dir: string, opts: { watch?: boolean; onUnwatched?: (reason: string) => void } = {}): TemplatesSource {
  let cached: (Templates & { fingerprint: string }) | undefined
  const watch = opts.watch === false ? undefined : new TreeWatch(dir, opts.onUnwatched)
  const read = async (fingerprint: string): Promise<Templates> => {
    const { inputs, unsupported } = await readTree(dir)
    if (unsupported.length > 0) throw new Error(`the templates tree holds entries that are not regular files: ${unsupported.join(', ')}`)
    const commit = await templatesCommit(dir, inputs)
    cached = { inputs, commit, fingerprint }
    return { inputs, commit }
  }
  const check = coalesced(async () => {
    // Watchers first: a change made while this check looks is an event, and the next call checks again.
    const mark = await watch?.arm()
    const fingerprint = await treeFingerprint(dir)
    let result: Templates
    if (!cached || cached.fingerprint !== fingerprint) result = await read(fingerprint)
    else {
      // A content hash (no Git repository) follows from the unchanged files; a commit may be made alone.
      if (!cached.commit.startsWith('sha256-')) cached.commit = await templatesCommit(dir, cached.inputs)
      result = { inputs: cached.inputs, commit: cached.commit }
    }
    watch?.checked(mark)
    return result
  })
  return {
    origin: dir,
    load: async () => {
      if (cached && watch?.clean) {
        // A change made just before this call may have its event queued but not yet delivered.
        await eventsDelivered()
        if (watch.clean) return { inputs: cached.inputs, commit: cached.commit }
      }
      return check()
    },
    close: () => watch?.close(),
  }
}

/**
 * A templates repository. Concurrent callers share one remote check (`coalesced`); each commit's files are read
 * from the object store once and kept while they are the newest.
 */
export function repositorySource(url: string, cacheDir: string): TemplatesSource {
  const gitdir = path.join(cacheDir, createHash('sha256').update(url).digest('hex').slice(0, 16) + '.git')
  let ready: Promise<void> | undefined
  let latest: Templates | undefined

  const refresh = async (): Promise<Templates> => {
    ready ??= mkdir(gitdir, { recursive: true })
      .then(() => initBare(gitdir))
      .catch((err) => {
        ready = undefined
        throw err
      })
    await ready
    const commit = await fetchBranch({ gitdir, url, branch: TEMPLATES_BRANCH })
    if (!commit) throw new Error(`the templates repository has no branch ${TEMPLATES_BRANCH}`)
    if (latest?.commit !== commit) latest = { commit, inputs: await readCommitFiles(gitdir, commit) }
    return latest
  }

  const origin = splitCredentials(url).url

  return {
    origin,
    load: coalesced(refresh),
  }
}

/** `onUnwatched`: why a templates folder could not be watched (then every generation checks it). */
export function templatesSource(
  config: { dir: string; repo: string | undefined; cacheDir: string },
  onUnwatched?: (reason: string) => void,
): TemplatesSource {
  return config.repo ? repositorySource(config.repo, config.cacheDir) : directorySource(config.dir, { onUnwatched })
}
