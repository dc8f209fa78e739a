/** Cloning a templates repository (isomorphic-git over HTTP(S), no git binary) into memory. */
import fs from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as git from 'isomorphic-git'
import nodeHttp from 'isomorphic-git/http/node'
import type { HttpClient } from 'isomorphic-git'
import { ProcessorError } from './findings.ts'
import {
  branchHead,
  COMMIT_ID,
  commitOf,
  fetchRefAt,
  initBare,
  isRegularFile,
  readBlob,
  readTreeEntries,
  TAG_NAME,
  VERSION_HISTORY_DEPTH,
  type RemoteRef,
} from './git-objects.ts'
import { readTree } from './tree.ts'
import type { InputFile } from './files.ts'

export interface CloneOptions {
  url: string
  /** Branch to clone; default `main`. */
  branch?: string
  /** Optional HTTP Basic credentials. */
  username?: string
  password?: string
  /** Folder inside the repository holding the templates; default the repository root. */
  subdir?: string
  /** The HTTP client (the service's destination-checked one); default isomorphic-git's Node client. */
  http?: HttpClient
  /**
   * The version to read instead of the branch's newest commit: a full commit id among the branch's
   * last VERSION_HISTORY_DEPTH commits, or a tag.
   */
  version?: string
}

/** The repository URL as every git route of the service accepts it: http or https, any host. */
export function repositoryUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ProcessorError(400, 'BAD_REQUEST', 'url is not a valid URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProcessorError(400, 'BAD_REQUEST', 'url must be an http or https URL')
  }
  return url
}

/** A folder inside the repository: relative, without `..`. */
export function checkSubdir(subdir: string): string {
  if (subdir.split('/').some((s) => s === '..') || subdir.startsWith('/')) {
    throw new ProcessorError(400, 'BAD_REQUEST', 'subdir must be a relative folder inside the repository')
  }
  return subdir
}

/** A version a request may name: a full commit id or a tag name (else 400 on `/version`). */
export function checkVersion(version: string): string {
  if (!COMMIT_ID.test(version) && !TAG_NAME.test(version)) {
    throw new ProcessorError(400, 'BAD_REQUEST', 'version must be a full commit id or a tag name', [
      { field: '/version', message: 'neither a 40-character commit id nor a tag name' },
    ])
  }
  return version
}

export interface ClonedTree {
  inputs: InputFile[]
  commit: string
  unsupported: string[]
}

/**
 * Shallow-clone one branch into a temporary folder, read the tree (without .git), remove the folder;
 * with `version`, that version of the repository instead (readVersion).
 */
export async function cloneRepository(opts: CloneOptions): Promise<ClonedTree> {
  const url = repositoryUrl(opts.url)
  const subdir = checkSubdir(opts.subdir ?? '')
  if (opts.version !== undefined) return readVersion(opts, checkVersion(opts.version), subdir)
  const dir = await mkdtemp(join(tmpdir(), 'ies-clone-'))
  try {
    const branch = opts.branch || 'main'
    try {
      await git.clone({
        fs,
        http: opts.http ?? nodeHttp,
        dir,
        url: opts.url,
        ref: branch,
        singleBranch: true,
        depth: 1,
        noTags: true,
        onAuth: opts.username !== undefined ? () => ({ username: opts.username, password: opts.password ?? '' }) : undefined,
        onAuthFailure: () => ({ cancel: true }),
      })
    } catch (e) {
      const err = e as Error & { code?: string }
      throw new ProcessorError(400, 'CLONE_FAILED', `could not clone ${url.origin}${url.pathname} at ${branch}: ${err.code ?? err.message}`)
    }
    const commit = await git.resolveRef({ fs, dir, ref: 'HEAD' })
    const { inputs, unsupported } = await readTree(subdir ? join(dir, subdir) : dir)
    return { inputs, commit, unsupported }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export interface RemoteBranch {
  /** http(s) URL without credentials (checked by the caller with repositoryUrl). */
  url: string
  branch: string
  username?: string
  password?: string
  /** The HTTP client (the service's destination-checked one); default isomorphic-git's Node client. */
  http?: HttpClient
}

const remoteOf = (opts: RemoteBranch): RemoteRef => ({
  url: opts.url,
  branch: opts.branch,
  http: opts.http ?? nodeHttp,
  auth: opts.username !== undefined ? { username: opts.username, password: opts.password ?? '' } : undefined,
})

/**
 * A failure talking to the git host as the service reports it: 400 `CLONE_FAILED` when the host
 * answered and refused (credentials, a 4xx, no such branch), 502 `CLONE_FAILED` when it could not be
 * reached or failed itself (so a caller may treat it as a passing outage). Only the URL's origin and
 * path and the error's code are named.
 */
function gitFailure(e: unknown, opts: RemoteBranch): ProcessorError {
  const err = e as Error & { code?: string; data?: { statusCode?: number } }
  const u = new URL(opts.url)
  const refused =
    err.code === 'UserCanceledError' ||
    err.code === 'NotFoundError' ||
    (err.code === 'HttpError' && typeof err.data?.statusCode === 'number' && err.data.statusCode < 500)
  const reason = err.code === 'HttpError' && err.data?.statusCode ? `HTTP ${err.data.statusCode}` : (err.code ?? err.message)
  return new ProcessorError(refused ? 400 : 502, 'CLONE_FAILED', `could not read ${u.origin}${u.pathname} at ${opts.branch}: ${reason}`)
}

/** The commit the branch points at on the remote (one ls-remote round trip, nothing fetched); null when there is no such branch. */
export async function remoteBranchHead(opts: RemoteBranch): Promise<string | null> {
  try {
    return await branchHead(remoteOf(opts))
  } catch (e) {
    throw gitFailure(e, opts)
  }
}

/**
 * Some files of the branch's newest commit: fetched (depth 1) into a temporary bare repository, the
 * named blobs read from it (null for a path the commit does not hold as a regular file: none, a link, a submodule), the folder removed.
 */
export async function readBranchFiles(
  opts: RemoteBranch & { paths: readonly string[] },
): Promise<{ commit: string; files: Map<string, Buffer | null> }> {
  const gitdir = await mkdtemp(join(tmpdir(), 'ies-catalog-fetch-'))
  try {
    let commit: string | null
    try {
      await initBare(gitdir)
      commit = await fetchRefAt({ ...remoteOf(opts), gitdir, ref: `refs/heads/${opts.branch}` })
    } catch (e) {
      throw gitFailure(e, opts)
    }
    if (!commit) throw gitFailure(Object.assign(new Error('no such branch'), { code: 'NotFoundError' }), opts)
    const entries = await readTreeEntries(gitdir, commit)
    const files = new Map<string, Buffer | null>()
    for (const filepath of opts.paths) {
      const entry = entries.get(filepath)
      files.set(filepath, isRegularFile(entry) ? await readBlob(gitdir, entry.oid) : null)
    }
    return { commit, files }
  } finally {
    await rm(gitdir, { recursive: true, force: true })
  }
}

/**
 * A version of a repository, read from a temporary bare repository: a tag is fetched by its ref (and
 * peeled), a commit id is the branch's head or looked for among its last VERSION_HISTORY_DEPTH
 * commits (a git host serves refs, not arbitrary commits). 404 VERSION_NOT_FOUND when the repository has no such
 * version. The tree's regular files under `subdir`, as a clone reads them: a symbolic link is
 * unsupported, a submodule is left out (a clone holds an empty folder for it).
 */
async function readVersion(opts: CloneOptions, version: string, subdir: string): Promise<ClonedTree> {
  const branch = opts.branch || 'main'
  const remote = remoteOf({ ...opts, branch })
  const gitdir = await mkdtemp(join(tmpdir(), 'ies-version-'))
  try {
    let commit: string | null
    try {
      await initBare(gitdir)
      const tag = !COMMIT_ID.test(version)
      const ref = tag ? `refs/tags/${version}` : `refs/heads/${branch}`
      // The newest commit first: a pin to it needs none of the history.
      let fetched = await fetchRefAt({ ...remote, gitdir, ref })
      if (fetched && !tag && fetched !== version) fetched = await fetchRefAt({ ...remote, gitdir, ref, depth: VERSION_HISTORY_DEPTH })
      commit = fetched && (await commitOf(gitdir, tag ? fetched : version))
    } catch (e) {
      throw gitFailure(e, { ...opts, branch })
    }
    if (!commit) {
      const u = new URL(opts.url)
      const where = COMMIT_ID.test(version) ? `among the last ${VERSION_HISTORY_DEPTH} commits of ${branch}` : 'as a tag'
      throw new ProcessorError(404, 'VERSION_NOT_FOUND', `${u.origin}${u.pathname} has no version ${version} ${where}`)
    }
    const prefix = subdir ? `${subdir.replace(/\/+$/, '')}/` : ''
    const inputs: InputFile[] = []
    const unsupported: string[] = []
    for (const [filepath, entry] of await readTreeEntries(gitdir, commit)) {
      if (!filepath.startsWith(prefix)) continue
      const rel = filepath.slice(prefix.length)
      if (entry.mode === '160000') continue
      if (isRegularFile(entry))
        inputs.push({ path: rel, content: await readBlob(gitdir, entry.oid), mode: entry.mode === '100755' ? 0o755 : 0o644 })
      else unsupported.push(rel)
    }
    if (prefix && inputs.length === 0 && unsupported.length === 0) {
      throw new ProcessorError(400, 'TEMPLATES_NOT_FOUND', `templates directory not found: ${subdir}`)
    }
    const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
    return { commit, inputs: inputs.sort((a, b) => byPath(a.path, b.path)), unsupported: unsupported.sort(byPath) }
  } finally {
    await rm(gitdir, { recursive: true, force: true })
  }
}
