// The Git operations of one push against the customer's repository (isomorphic-git, HTTPS, the
// decrypted deploy key as the HTTP Basic password): fetches and pushes with the request's
// credentials and HTTP client, a failure of the server turned into a JobFailure (remote-failure.ts),
// blobs read from either repository of the push, commits written into the one the branch is fetched into.
import fs from 'node:fs'
import type { HttpClient } from 'isomorphic-git'
import { JobFailure } from '../../core/job-failure.ts'
import { fetchRefAt, git, http, readBlob, type Credentials } from '@ies/processor-lib/git-objects'
import { refusalOf, remoteFailure } from './remote-failure.ts'

/** What the Git operations need of a push request (push.ts's PushRequest). */
export interface GitRemote {
  url: string
  /** The branch; none: the remote's default branch (its `HEAD`), `main` in an empty repository. */
  branch?: string
  auth: Credentials
  author: { name: string; email: string }
  /** The HTTP client: destination.ts's pushHttp (checked addresses, a stall timeout); default isomorphic-git's. */
  http?: HttpClient
}

export type GitSession = ReturnType<typeof gitSession>

/**
 * The Git operations of one push: fetches and pushes with the request's credentials and HTTP client
 * (a failure of the server as a JobFailure: remoteFailure), blobs read from either repository,
 * commits written in `gitdir`.
 */
export function gitSession(gitdir: string, basedir: string, req: GitRemote, cache: object) {
  const remote = <T>(step: Promise<T>, ref = req.branch ?? 'the default branch'): Promise<T> =>
    step.catch((err: unknown) => {
      throw remoteFailure(err, req.url, ref) ?? err
    })
  const fetchInto = (dir: string, ref: string, depth?: number) =>
    remote(fetchRefAt({ gitdir: dir, url: req.url, ref, auth: req.auth, depth, http: req.http }))
  const pushRef = async (ref: string, oid: string, force: boolean) => {
    await git.writeRef({ fs, gitdir, ref, value: oid, force: true })
    const result = await remote(
      git.push({ fs, http: req.http ?? http, gitdir, cache, url: req.url, ref, remoteRef: ref, force, ...authOf(req) }),
      ref,
    )
    if (!result.ok) throw new JobFailure('GIT_PUSH_REJECTED', `The Git server refused the push to ${ref}: ${refusalOf(result)}`)
  }
  const person = () => ({ ...req.author, timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 })
  return {
    remote,
    fetchInto,
    fetch: (ref: string, depth?: number) => fetchInto(gitdir, ref, depth),
    pushRef,
    read: (oid: string) => readBlob(gitdir, oid, cache).catch(() => readBlob(basedir, oid, cache)),
    commitOf: async (tree: string, parent: string | null, message: string) =>
      git.writeCommit({ fs, gitdir, commit: { message, tree, parent: parent ? [parent] : [], author: person(), committer: person() } }),
    treeOf: async (commit: string | null, dir = gitdir) =>
      commit ? (await git.readCommit({ fs, gitdir: dir, oid: commit, cache })).commit.tree : null,
  }
}

const authOf = (req: Pick<GitRemote, 'auth'>) => ({
  onAuth: () => ({ username: req.auth.username, password: req.auth.password }),
  onAuthFailure: () => ({ cancel: true }),
})

/** The remote's default branch: the branch its `HEAD` points at; null for an empty repository. */
export async function defaultBranchOf(req: GitRemote): Promise<string | null> {
  const refs = await git.listServerRefs({ http: req.http ?? http, url: req.url, prefix: 'HEAD', symrefs: true, ...authOf(req) })
  const target = refs.find((r) => r.ref === 'HEAD')?.target
  return target?.startsWith('refs/heads/') ? target.slice('refs/heads/'.length) : null
}

/** The commit a ref points at on the remote now (null: none, or it could not be asked). */
export async function remoteHead(req: GitRemote, ref: string): Promise<string | null> {
  const refs = await git.listServerRefs({ http: req.http ?? http, url: req.url, prefix: ref, ...authOf(req) }).catch(() => [])
  return refs.find((r) => r.ref === ref)?.oid ?? null
}
