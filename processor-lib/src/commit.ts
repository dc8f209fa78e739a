/**
 * The templates commit (the catalog's `commit`, the ETag of GET /catalog, a generation's
 * `templatesCommit`). Read with isomorphic-git, no git binary:
 *
 * - a templates directory inside a git repository: the last commit that changed that directory
 *   (walking first parents from `HEAD`), so commits elsewhere in the repository (the service's own
 *   code, when the templates are the bundled `templates/` folder) keep the commit and a saved wizard
 *   draft still sees the same catalog; when the directory as it is on disk differs from that commit
 *   (edited, added, removed or untracked files, a changed executable bit), a content marker follows:
 *   `<commit>-dirty-<12 hex of the working tree's git tree id>`, so an uncommitted edit is a new
 *   catalog and reverting it gives the commit back;
 * - a directory that is not inside a repository (or whose repository has no commit, or does not
 *   track it): `sha256-<hex>` of the tree's contents (every file's relative path and bytes, in path order).
 *
 * A templates repository (TEMPLATES_REPO, POST /process-git-download) is the repository itself: its
 * commit is the branch's commit, read where it is cloned, not here.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import * as git from 'isomorphic-git'
import { readTree } from './tree.ts'
import type { InputFile } from './files.ts'

/**
 * The commit of the templates in `templatesDir`. `inputs`: the directory's files as just read
 * (readTree), when the caller has them; the same array again is not hashed again.
 */
export async function templatesCommit(templatesDir: string, inputs?: readonly InputFile[]): Promise<string> {
  const dir = resolve(templatesDir)
  let root: string | null = null
  try {
    root = await git.findRoot({ fs, filepath: dir })
  } catch {
    root = null
  }
  const files = async () => inputs ?? (await readTree(dir)).inputs
  if (root) {
    let head: string | null = null
    try {
      head = await git.resolveRef({ fs, dir: root, ref: 'HEAD' })
    } catch {
      head = null // a repository without commits
    }
    const rel = relative(root, dir).split(sep).join('/')
    const last = head ? await lastChange(root, head, rel) : null
    if (last) {
      const working = workingTreeId(await files())
      return working === last.tree ? last.commit : `${last.commit}-dirty-${working.slice(0, 12)}`
    }
  }
  return contentHash(await files())
}

export function contentHash(inputs: readonly InputFile[]): string {
  const h = createHash('sha256')
  for (const f of inputs) {
    h.update(f.path)
    h.update('\0')
    h.update(String(f.content.length))
    h.update('\0')
    h.update(f.content)
  }
  return `sha256-${h.digest('hex')}`
}

interface LastChange {
  /** The last commit (first-parent line) whose tree at the path differs from its parent's. */
  commit: string
  /** The git tree id of the path at that commit (= at HEAD). */
  tree: string
}

/** Per repository, HEAD and path: the walk is done once per HEAD. */
const lastChanges = new Map<string, Promise<LastChange | null>>()
const MEMO_LIMIT = 32

function lastChange(root: string, head: string, rel: string): Promise<LastChange | null> {
  const key = `${root}\0${head}\0${rel}`
  let found = lastChanges.get(key)
  if (!found) {
    found = walkLastChange(root, head, rel).catch(() => null)
    if (lastChanges.size >= MEMO_LIMIT) lastChanges.delete(lastChanges.keys().next().value!)
    lastChanges.set(key, found)
  }
  return found
}

async function walkLastChange(root: string, head: string, rel: string): Promise<LastChange | null> {
  const cache = {}
  const treeAt = async (commit: string): Promise<string | null> => {
    try {
      if (!rel) return (await git.readCommit({ fs, dir: root, oid: commit, cache })).commit.tree
      return (await git.readTree({ fs, dir: root, oid: commit, filepath: rel, cache })).oid
    } catch {
      return null // the path does not exist in that commit
    }
  }
  const tree = await treeAt(head)
  if (!tree) return null // the directory is not tracked
  let commit = head
  for (;;) {
    let parent: string | undefined
    try {
      parent = (await git.readCommit({ fs, dir: root, oid: commit, cache })).commit.parent[0]
    } catch {
      return { commit, tree } // a shallow history ends here
    }
    if (!parent) return { commit, tree }
    // null also when the parent is not there (a shallow clone): the history ends at this commit
    if ((await treeAt(parent)) !== tree) return { commit, tree }
    commit = parent
  }
}

/** The working tree id of a file list, memoized per list (a caller passes the same read again). */
const workingIds = new WeakMap<readonly InputFile[], string>()

/**
 * The git tree id the files would have if committed as they are (blobs `100644`, or `100755` when
 * executable; directories from the paths, so empty directories do not count, as in git).
 */
export function workingTreeId(inputs: readonly InputFile[]): string {
  const known = workingIds.get(inputs)
  if (known) return known
  interface Dir {
    files: Map<string, { mode: string; oid: Buffer }>
    dirs: Map<string, Dir>
  }
  const root: Dir = { files: new Map(), dirs: new Map() }
  for (const f of inputs) {
    const parts = f.path.split('/')
    let d = root
    for (const part of parts.slice(0, -1)) {
      let next = d.dirs.get(part)
      if (!next) d.dirs.set(part, (next = { files: new Map(), dirs: new Map() }))
      d = next
    }
    d.files.set(parts[parts.length - 1], { mode: f.mode & 0o111 ? '100755' : '100644', oid: objectId('blob', f.content) })
  }
  const write = (d: Dir): Buffer => {
    const entries: { name: string; key: Buffer; mode: string; oid: Buffer }[] = []
    for (const [name, file] of d.files) entries.push({ name, key: Buffer.from(name), ...file })
    for (const [name, sub] of d.dirs) entries.push({ name, key: Buffer.from(`${name}/`), mode: '40000', oid: write(sub) })
    entries.sort((a, b) => Buffer.compare(a.key, b.key)) // git orders a directory as its name plus '/'
    const body = Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), e.oid]))
    return objectId('tree', body)
  }
  const id = write(root).toString('hex')
  workingIds.set(inputs, id)
  return id
}

function objectId(type: 'blob' | 'tree', content: Buffer): Buffer {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest()
}
