// Git object plumbing over isomorphic-git (HTTP(S) only, no git binary), the one copy of it: the
// server's templates source and push, and this library's repository reads (git.ts: the processor
// service's catalog of a repository) use it. Ask a remote where a branch points, fetch one branch (or
// any ref) into a bare git directory, read a commit's files or its tree's entries (path, blob id,
// mode) without the contents, and write trees from in-memory files or from entries.
import fs from 'node:fs'
import * as git from 'isomorphic-git'
import type { HttpClient } from 'isomorphic-git'
import http from 'isomorphic-git/http/node'
import type { InputFile } from './tree.ts'

export interface Credentials {
  username: string
  password: string
}

const authOf = (auth?: Credentials) => ({
  onAuth: auth ? () => ({ username: auth.username, password: auth.password }) : undefined,
  onAuthFailure: () => ({ cancel: true }),
})

/** A branch of a remote repository, and how to reach it. */
export interface RemoteRef {
  url: string
  branch: string
  auth?: Credentials
  /** The HTTP client (a push's or the processor service's destination-checked one); default isomorphic-git's Node client. */
  http?: HttpClient
}

/** The commit the branch points at on the remote (one ls-remote round trip, nothing fetched); null when there is no such branch. */
export async function branchHead(opts: RemoteRef): Promise<string | null> {
  const ref = `refs/heads/${opts.branch}`
  const refs = await git.listServerRefs({ http: opts.http ?? http, url: opts.url, prefix: ref, ...authOf(opts.auth) })
  return refs.find((r) => r.ref === ref)?.oid ?? null
}

/**
 * The commit `branch` points at on the remote, fetched into the bare `gitdir` when it is not there
 * yet (one round trip when nothing changed); null when the remote has no such branch (an empty repository).
 */
export async function fetchBranch(opts: RemoteRef & { gitdir: string }): Promise<string | null> {
  const head = await branchHead(opts)
  if (!head) return null
  if (await hasCommit(opts.gitdir, head)) return head
  await fetchRefAt({ ...opts, ref: `refs/heads/${opts.branch}` })
  return head
}

/**
 * Fetches a full ref (its last `depth` commits) in one discovery and one pack request, without
 * asking for the ref list first; the commit it points at, or null when the remote has no such ref
 * (or no refs at all).
 */
export async function fetchRefAt(opts: {
  gitdir: string
  url: string
  ref: string
  auth?: Credentials
  depth?: number
  http?: HttpClient
}): Promise<string | null> {
  await git.addRemote({ fs, gitdir: opts.gitdir, remote: 'origin', url: opts.url, force: true })
  try {
    const fetched = await git.fetch({
      fs,
      http: opts.http ?? http,
      gitdir: opts.gitdir,
      remote: 'origin',
      ref: opts.ref,
      remoteRef: opts.ref,
      singleBranch: true,
      depth: opts.depth ?? 1,
      tags: false,
      ...authOf(opts.auth),
    })
    return fetched.fetchHead ?? null
  } catch (err) {
    if ((err as { code?: unknown }).code === 'NotFoundError') return null
    throw err
  }
}

async function hasCommit(gitdir: string, oid: string): Promise<boolean> {
  try {
    await git.readCommit({ fs, gitdir, oid })
    return true
  } catch {
    return false
  }
}

export async function initBare(gitdir: string): Promise<void> {
  await git.init({ fs, gitdir, bare: true, defaultBranch: 'main' })
}

/** Each regular file of a commit's tree (links and submodules are skipped), with its mode as 0o644 or 0o755. */
async function walkFiles(
  gitdir: string,
  commit: string,
  cache: object,
  visit: (filepath: string, entry: git.WalkerEntry, mode: number) => Promise<void>,
): Promise<void> {
  await git.walk({
    fs,
    gitdir,
    cache,
    trees: [git.TREE({ ref: commit })],
    map: async (filepath, [entry]) => {
      if (!entry || filepath === '.') return true
      const type = await entry.type()
      if (type === 'tree') return true
      const mode = await entry.mode()
      if (type !== 'blob' || mode === 0o120000) return null
      await visit(filepath, entry, mode & 0o111 ? 0o755 : 0o644)
      return null
    },
  })
}

/** Every file of a commit, sorted by path (links and submodules are skipped). */
export async function readCommitFiles(gitdir: string, commit: string, cache: object = {}): Promise<InputFile[]> {
  const files: InputFile[] = []
  await walkFiles(gitdir, commit, cache, async (filepath, entry, mode) => {
    const content = await entry.content()
    if (content) files.push({ path: filepath, content: Buffer.from(content), mode })
  })
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** A file of a tree without its content: its blob id and mode (0o644 or 0o755). */
export interface BlobEntry {
  oid: string
  mode: number
}

/** Path to blob entry: a tree as the merge reads it. */
export type TreeEntries = Map<string, BlobEntry>

/** The regular files of a commit's tree as entries (links and submodules are skipped); empty for null. */
export async function readTreeEntries(gitdir: string, commit: string | null, cache: object = {}): Promise<TreeEntries> {
  const entries: TreeEntries = new Map()
  if (commit)
    await walkFiles(gitdir, commit, cache, async (filepath, entry, mode) => void entries.set(filepath, { oid: await entry.oid(), mode }))
  return entries
}

export async function readBlob(gitdir: string, oid: string, cache: object = {}): Promise<Buffer> {
  return Buffer.from((await git.readBlob({ fs, gitdir, oid, cache })).blob)
}

export async function writeBlob(gitdir: string, content: string | Buffer): Promise<string> {
  return git.writeBlob({ fs, gitdir, blob: typeof content === 'string' ? Buffer.from(content, 'utf8') : content })
}

/** Write the blobs of the files; their entries. */
export async function writeFileBlobs(
  gitdir: string,
  files: readonly { path: string; content: string | Buffer; mode: number }[],
): Promise<TreeEntries> {
  const entries: TreeEntries = new Map()
  for (const f of files) entries.set(f.path, { oid: await writeBlob(gitdir, f.content), mode: f.mode & 0o111 ? 0o755 : 0o644 })
  return entries
}

interface Dir {
  files: Map<string, BlobEntry>
  dirs: Map<string, Dir>
}

/** Write the trees of entries whose blobs are in the repository; the root tree's oid. */
export async function writeEntriesTree(gitdir: string, files: TreeEntries): Promise<string> {
  const root: Dir = { files: new Map(), dirs: new Map() }
  for (const [filepath, entry] of files) {
    const parts = filepath.split('/')
    let dir = root
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part)
      if (!next) dir.dirs.set(part, (next = { files: new Map(), dirs: new Map() }))
      dir = next
    }
    dir.files.set(parts[parts.length - 1], entry)
  }
  const write = async (dir: Dir): Promise<string> => {
    const entries: git.TreeEntry[] = []
    for (const [path, file] of dir.files) entries.push({ path, oid: file.oid, mode: file.mode & 0o111 ? '100755' : '100644', type: 'blob' })
    for (const [path, sub] of dir.dirs) entries.push({ path, oid: await write(sub), mode: '040000', type: 'tree' })
    return git.writeTree({ fs, gitdir, tree: entries })
  }
  return write(root)
}

/** Write blobs and trees for the files; the root tree's oid. */
export async function writeFilesTree(
  gitdir: string,
  files: readonly { path: string; content: string | Buffer; mode: number }[],
): Promise<string> {
  return writeEntriesTree(gitdir, await writeFileBlobs(gitdir, files))
}

export { git, http }
