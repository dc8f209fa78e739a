// Git object plumbing over isomorphic-git (HTTP(S) only, no git binary), shared by the templates
// source and the push: fetch one branch into a bare git directory, read a commit's files, and
// write a tree from in-memory files.
import fs from 'node:fs'
import * as git from 'isomorphic-git'
import http from 'isomorphic-git/http/node'
import type { HttpClient } from 'isomorphic-git'
import type { InputFile } from '@ies/processor-lib'

export interface Credentials {
  username: string
  password: string
}

const authOf = (auth?: Credentials) => ({
  onAuth: auth ? () => ({ username: auth.username, password: auth.password }) : undefined,
  onAuthFailure: () => ({ cancel: true }),
})

/**
 * The commit `branch` points at on the remote, fetched into the bare `gitdir` when it is not there
 * yet (one round trip when nothing changed); null when the remote has no such branch (an empty repository).
 */
export async function fetchBranch(opts: {
  gitdir: string
  url: string
  branch: string
  auth?: Credentials
  /** The HTTP client (a push's destination-checked one); default isomorphic-git's Node client. */
  http?: HttpClient
}): Promise<string | null> {
  const ref = `refs/heads/${opts.branch}`
  const refs = await git.listServerRefs({ http: opts.http ?? http, url: opts.url, prefix: ref, ...authOf(opts.auth) })
  const head = refs.find((r) => r.ref === ref)
  if (!head) return null
  if (await hasCommit(opts.gitdir, head.oid)) return head.oid
  await git.addRemote({ fs, gitdir: opts.gitdir, remote: 'origin', url: opts.url, force: true })
  await git.fetch({
    fs,
    http: opts.http ?? http,
    gitdir: opts.gitdir,
    remote: 'origin',
    ref: opts.branch,
    remoteRef: opts.branch,
    singleBranch: true,
    depth: 1,
    tags: false,
    ...authOf(opts.auth),
  })
  return head.oid
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

/** Every file of a commit, sorted by path (links and submodules are skipped). */
export async function readCommitFiles(gitdir: string, commit: string, cache: object = {}): Promise<InputFile[]> {
  const files: InputFile[] = []
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
      const content = await entry.content()
      if (content) files.push({ path: filepath, content: Buffer.from(content), mode: mode & 0o111 ? 0o755 : 0o644 })
      return null
    },
  })
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

interface Dir {
  files: Map<string, { content: Buffer; mode: number }>
  dirs: Map<string, Dir>
}

/** Write blobs and trees for the files; the root tree's oid. */
export async function writeFilesTree(
  gitdir: string,
  files: readonly { path: string; content: string | Buffer; mode: number }[],
): Promise<string> {
  const root: Dir = { files: new Map(), dirs: new Map() }
  for (const f of files) {
    const parts = f.path.split('/')
    let dir = root
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part)
      if (!next) dir.dirs.set(part, (next = { files: new Map(), dirs: new Map() }))
      dir = next
    }
    dir.files.set(parts[parts.length - 1], {
      content: typeof f.content === 'string' ? Buffer.from(f.content, 'utf8') : f.content,
      mode: f.mode,
    })
  }
  const write = async (dir: Dir): Promise<string> => {
    const entries: git.TreeEntry[] = []
    for (const [path, file] of dir.files) {
      const oid = await git.writeBlob({ fs, gitdir, blob: file.content })
      entries.push({ path, oid, mode: file.mode & 0o111 ? '100755' : '100644', type: 'blob' })
    }
    for (const [path, sub] of dir.dirs) entries.push({ path, oid: await write(sub), mode: '040000', type: 'tree' })
    return git.writeTree({ fs, gitdir, tree: entries })
  }
  return write(root)
}

export { git, http }
