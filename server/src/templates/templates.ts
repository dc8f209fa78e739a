// Where a generation reads its templates: the TEMPLATES_DIR tree (default: the bundled `templates/`),
// or TEMPLATES_REPO, a Git repository whose `main` branch is used unpinned: every call asks the
// remote for the newest commit (isomorphic-git) and fetches it into a cached bare clone when it is new.
// An environment pinned to a version (`templatesPin`) reads that version instead (`version`):
// templates-versions.ts keeps the versions of a directory; a repository's history is fetched on demand.
import { mkdir } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import path from 'node:path'
import { readTree, templatesCommit, type InputFile } from '@ies/processor-lib'
import type { Templates, TemplatesSource } from './source.ts'
import { treeFingerprint } from './tree-fingerprint.ts'
import { eventsDelivered, TreeWatch } from './tree-watch.ts'
import {
  COMMIT_ID,
  commitOf,
  fetchBranch,
  fetchRefAt,
  git,
  initBare,
  readCommitFiles,
  TAG_NAME,
  VERSION_HISTORY_DEPTH,
} from '@ies/processor-lib/git-objects'
import fs from 'node:fs'
import type { Db } from 'mongodb'
import { TemplatesVersionStore } from './templates-versions.ts'

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
export function directorySource(
  dir: string,
  opts: { watch?: boolean; onUnwatched?: (reason: string) => void; versions?: TemplatesVersionStore } = {},
): TemplatesSource {
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
    // Each version read is kept, so that an environment pinned to it keeps it when the folder changes.
    await opts.versions?.keep(result)
    return result
  })
  const load = async (): Promise<Templates> => {
    if (cached && watch?.clean) {
      // A change made just before this call may have its event queued but not yet delivered.
      await eventsDelivered()
      if (watch.clean) return { inputs: cached.inputs, commit: cached.commit }
    }
    return check()
  }
  return {
    origin: dir,
    load,
    async version(ref) {
      const current = await load()
      if (current.commit === ref) return current
      const inputs = await opts.versions?.files(ref)
      return inputs ? { commit: ref, inputs } : null
    },
    distance: async () => null,
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
  const load = coalesced(refresh)
  /** The files of the last few pinned versions read, by commit. */
  const pinned = new Map<string, InputFile[]>()
  /** Commits of `main`, newest first, as last fetched with its history. */
  let history: { head: string; commits: string[] } | undefined

  const filesAt = async (commit: string): Promise<Templates> => {
    let inputs = pinned.get(commit)
    if (!inputs) {
      inputs = await readCommitFiles(gitdir, commit)
      if (pinned.size >= PINNED_VERSIONS_KEPT) pinned.delete(pinned.keys().next().value as string)
      pinned.set(commit, inputs)
    }
    return { commit, inputs }
  }
  /** Fetches `main` with its history (VERSION_HISTORY_DEPTH commits) once per head. */
  const historyOf = async (head: string) => {
    if (history?.head !== head) {
      await fetchRefAt({ gitdir, url, ref: `refs/heads/${TEMPLATES_BRANCH}`, depth: VERSION_HISTORY_DEPTH })
      const log = await git.log({ fs, gitdir, ref: head, depth: VERSION_HISTORY_DEPTH }).catch(() => [])
      history = { head, commits: log.map((c) => c.oid) }
    }
    return history.commits
  }

  return {
    origin,
    load,
    async version(ref) {
      const newest = await load()
      if (ref === newest.commit) return newest
      if (COMMIT_ID.test(ref)) {
        if ((await commitOf(gitdir, ref)) || (await historyOf(newest.commit)).includes(ref)) return filesAt(ref)
        return null
      }
      if (!TAG_NAME.test(ref)) return null
      const tagged = await fetchRefAt({ gitdir, url, ref: `refs/tags/${ref}` })
      const commit = tagged && (await commitOf(gitdir, tagged))
      return commit ? filesAt(commit) : null
    },
    async distance(from, to) {
      const at = (await historyOf(to)).indexOf(from)
      return at < 0 ? null : at
    },
  }
}

/** Pinned versions whose files a repository source keeps in memory. */
const PINNED_VERSIONS_KEPT = 4

/** `onUnwatched`: why a templates folder could not be watched (then every generation checks it). */
/** `db`: where a templates folder's versions are kept (templates-versions.ts). */
export function templatesSource(
  config: { dir: string; repo: string | undefined; cacheDir: string },
  onUnwatched?: (reason: string) => void,
  db?: Db,
): TemplatesSource {
  if (config.repo) return repositorySource(config.repo, config.cacheDir)
  return directorySource(config.dir, { onUnwatched, versions: db && new TemplatesVersionStore(db) })
}
