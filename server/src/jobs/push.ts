// The push of a generated repository: fetch the environment's branch (isomorphic-git, HTTPS, the
// decrypted deploy key as the HTTP Basic password with GIT_PUSH_USERNAME as the user), replace the
// whole tree with the generated files in one commit on top of it, and push that branch. The working
// tree is never checked out: blobs, trees and the commit are written straight into a temporary bare
// repository.
import { mkdtemp, rm } from 'node:fs/promises'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { TreeFile } from '@ies/processor-lib'
import { fetchBranch, git, http, initBare, writeFilesTree, type Credentials } from './git-objects.ts'

export interface PushRequest {
  url: string
  branch: string
  auth: Credentials
  files: readonly TreeFile[]
  message: string
  author: { name: string; email: string }
}

export interface PushOutcome {
  commit: string
  /** False when the branch already held exactly these files (nothing was pushed). */
  changed: boolean
}

export async function pushFiles(req: PushRequest): Promise<PushOutcome> {
  const gitdir = await mkdtemp(path.join(os.tmpdir(), 'ies-push-'))
  try {
    await initBare(gitdir)
    const parent = await fetchBranch({ gitdir, url: req.url, branch: req.branch, auth: req.auth })
    const tree = await writeFilesTree(gitdir, req.files)
    if (parent && (await git.readCommit({ fs, gitdir, oid: parent })).commit.tree === tree) {
      return { commit: parent, changed: false }
    }
    const now = Math.floor(Date.now() / 1000)
    const person = { ...req.author, timestamp: now, timezoneOffset: 0 }
    const commit = await git.writeCommit({
      fs,
      gitdir,
      commit: { message: req.message, tree, parent: parent ? [parent] : [], author: person, committer: person },
    })
    const ref = `refs/heads/${req.branch}`
    await git.writeRef({ fs, gitdir, ref, value: commit, force: true })
    const result = await git.push({
      fs,
      http,
      gitdir,
      url: req.url,
      ref,
      remoteRef: ref,
      onAuth: () => ({ username: req.auth.username, password: req.auth.password }),
      onAuthFailure: () => ({ cancel: true }),
    })
    if (!result.ok) {
      const reason = Object.values(result.refs ?? {}).find((r) => !r.ok)?.error ?? result.error ?? 'rejected'
      throw new Error(`the remote refused the push: ${reason}`)
    }
    return { commit, changed: true }
  } finally {
    await rm(gitdir, { recursive: true, force: true })
  }
}
