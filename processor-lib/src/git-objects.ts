// Git object plumbing over isomorphic-git (HTTP(S) only, no git binary), the one copy of it: the
// server's templates source and push, and this library's repository reads (git.ts: the processor
// service's catalog of a repository) use it. Ask a remote where a branch points, fetch one branch (or
// any ref) into a bare git directory, read a commit's regular files (a templates source) or every
// entry of its tree (path, object id, mode: files, executables, symbolic links, submodules) without
// the contents, and write trees from in-memory files or from entries.
import fs from 'node:fs'
import * as git from 'isomorphic-git'
import type { HttpClient } from 'isomorphic-git'
import http from 'isomorphic-git/http/node'
import type { InputFile } from './files.ts'
import { parseTree, serializeTree, type RawTreeEntry } from './tree-object.ts'

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

/** A templates version as a pin or a request names it: a full commit id... */
export const COMMIT_ID = /^[0-9a-f]{40}$/
/** ...or a tag name (no ref syntax, no path tricks). */
export const TAG_NAME = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/
/** How many commits of a branch are fetched to find a version named by its commit. */
export const VERSION_HISTORY_DEPTH = 1000

/** The commit an object is or points at (a tag is peeled), or null when the object is not here. */
export async function commitOf(gitdir: string, oid: string): Promise<string | null> {
  try {
    const { type, object } = await git.readObject({ fs, gitdir, oid })
    if (type === 'commit') return oid
    if (type === 'tag') return commitOf(gitdir, (object as { object: string }).object)
    return null
  } catch {
    return null
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

/**
 * The mode of a tree entry that is no folder: a file, an executable file, a symbolic link (its blob
 * holds the target) or a submodule (a gitlink: the commit of another repository, not stored here).
 */
export type EntryMode = '100644' | '100755' | '120000' | '160000'

/** An entry of a tree without its content: its object id (a blob, or a submodule's commit) and mode. */
export interface TreeEntry {
  oid: string
  mode: EntryMode
}

/** Path to entry: a tree as the merge reads it, every entry but folders. */
export type TreeEntries = Map<string, TreeEntry>

/** A regular file (executable or not): what has content the merge can read and merge. */
export const isRegularFile = (entry: TreeEntry | undefined): entry is TreeEntry => entry?.mode === '100644' || entry?.mode === '100755'

/**
 * Every entry of a commit's (or tree's) tree, folders walked into: files, executables, symbolic
 * links and submodules, each with its own mode, every name as it is (tree-object.ts); empty for null.
 */
export async function readTreeEntries(gitdir: string, commit: string | null, cache: object = {}): Promise<TreeEntries> {
  const entries: TreeEntries = new Map()
  const visit = async (oid: string, prefix: string): Promise<void> => {
    const { type, object } = await git.readObject({ fs, gitdir, oid, format: 'content', cache })
    const bytes = Buffer.from(object as Uint8Array)
    if (type === 'commit') return visit(/^tree ([0-9a-f]{40})/.exec(bytes.toString('latin1'))![1], prefix)
    for (const entry of parseTree(bytes)) {
      if (entry.mode === '40000') await visit(entry.oid, `${prefix}${entry.name}/`)
      else entries.set(`${prefix}${entry.name}`, { oid: entry.oid, mode: entry.mode as EntryMode })
    }
  }
  if (commit) await visit(commit, '')
  return entries
}

export async function readBlob(gitdir: string, oid: string, cache: object = {}): Promise<Buffer> {
  return Buffer.from((await git.readBlob({ fs, gitdir, oid, cache })).blob)
}

export async function writeBlob(gitdir: string, content: string | Buffer): Promise<string> {
  return git.writeBlob({ fs, gitdir, blob: typeof content === 'string' ? Buffer.from(content, 'utf8') : content })
}

/** Write the blobs of the files; their entries (100755 when any execute bit is set, else 100644). */
export async function writeFileBlobs(
  gitdir: string,
  files: readonly { path: string; content: string | Buffer; mode: number }[],
): Promise<TreeEntries> {
  const entries: TreeEntries = new Map()
  for (const f of files) entries.set(f.path, { oid: await writeBlob(gitdir, f.content), mode: f.mode & 0o111 ? '100755' : '100644' })
  return entries
}

interface Dir {
  entries: Map<string, TreeEntry>
  dirs: Map<string, Dir>
}

/** The names `git fsck --strict` refuses in a tree: empty, `.`, `..`, `.git` (any case). */
const BAD_NAME = /^(?:|\.|\.\.|\.git)$/i

/** Thrown for entries that cannot be one tree: a name both a file and a folder, or a name git refuses. */
export class InvalidTreeError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`)
    this.name = 'InvalidTreeError'
  }
}

/**
 * Write the trees of entries whose blobs are in the repository (a submodule's commit need not be);
 * the root tree's oid. Each tree is written sorted as git sorts, names byte for byte as they were
 * read (tree-object.ts), so every tree passes `git fsck --strict`; a path both a file and a folder,
 * or a refused name, throws InvalidTreeError instead of writing a tree with duplicate names.
 */
export async function writeEntriesTree(gitdir: string, files: TreeEntries): Promise<string> {
  const root: Dir = { entries: new Map(), dirs: new Map() }
  for (const [filepath, entry] of files) {
    const parts = filepath.split('/')
    if (parts.some((part) => BAD_NAME.test(part))) throw new InvalidTreeError(filepath, 'a name git refuses in a tree')
    let dir = root
    for (const [i, part] of parts.slice(0, -1).entries()) {
      if (dir.entries.has(part)) throw new InvalidTreeError(parts.slice(0, i + 1).join('/'), 'both a file and a folder')
      let next = dir.dirs.get(part)
      if (!next) dir.dirs.set(part, (next = { entries: new Map(), dirs: new Map() }))
      dir = next
    }
    const name = parts[parts.length - 1]
    if (dir.dirs.has(name)) throw new InvalidTreeError(filepath, 'both a file and a folder')
    dir.entries.set(name, entry)
  }
  const write = async (dir: Dir): Promise<string> => {
    const entries: RawTreeEntry[] = [...dir.entries].map(([name, entry]) => ({ name, ...entry }))
    for (const [name, sub] of dir.dirs) entries.push({ name, oid: await write(sub), mode: '40000' })
    return git.writeObject({ fs, gitdir, type: 'tree', object: serializeTree(entries), format: 'content' })
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
