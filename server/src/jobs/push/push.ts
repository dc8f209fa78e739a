// The push of a generated repository as a three-way merge that keeps the customer's work
// (tree-merge.ts): base = the generated tree the branch was last built from (merge-base.ts); ours =
// the branch head; theirs = the new generated tree. The working tree is never checked out: blobs,
// trees and commits are written straight into a bare repository kept between pushes of the same URL
// (repository-cache.ts), so a fetch downloads only what is new; the Git operations are
// git-session.ts's (HTTPS, the deploy key as the password), their failures remote-failure.ts's.
//  - the branch: the request's, else the remote's default branch (its HEAD; `main` in an empty
//    repository). A branch that does not exist starts from the default branch's head.
//  - strategy "merge": a conflict fails the push (PUSH_CONFLICT, the files and hunks as details) and
//    leaves the branch as it was; else the generated files are kept (keepBase), the merge is committed
//    on top of the head and pushed, then the generated ref is moved to a commit of the new generated
//    tree (its parent: the previous one); a refused ref is a warning.
//  - strategy "branch": the merge, conflict markers included, is pushed to a new branch for a pull
//    request; the environment's branch and the generated ref stay as they are.
//  - dry run: everything but writing; the changes against the head.
//  - the branch moved between the fetch and the push (a customer push): fetch, merge and push again,
//    up to MAX_ATTEMPTS times.
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { TreeFile } from '@ies/processor-lib'
import { JobFailure } from '../../core/job-failure.ts'
import { initBare, readTreeEntries, writeBlob, writeEntriesTree, writeFileBlobs, type TreeEntries } from '@ies/processor-lib/git-objects'
import { GENERATION_RECORD_PATH, parseGenerationRecord, recordOf, sameGeneration, type GenerationRecord } from './generation-record.ts'
import { defaultBranchOf, gitSession, remoteHead, type GitRemote, type GitSession } from './git-session.ts'
import {
  findBase,
  generatedBranchRef,
  generatedRef,
  REVIEW_TRAILER_NAME,
  type BaseFound,
  type BaseKind,
  type BaseSearch,
} from './merge-base.ts'
import { changesOf, type FileChange } from './push-preview.ts'
import { recordedConflicts } from './push-details.ts'
import { withRepository } from './repository-cache.ts'
import { mergeTrees, type FileConflict } from './tree-merge.ts'

export type PushStrategy = 'merge' | 'branch'

/** Attempts of fetch, merge and push when the branch moves meanwhile. */
export const MAX_ATTEMPTS = 3

export interface PushRequest extends GitRemote {
  /** The generated files, the generation record (`.ies/generation.json`) among them. */
  files: readonly TreeFile[]
  /** That generation record, when the caller has read it (push-job.ts); else it is read from `files` here. */
  record?: GenerationRecord | null
  /** The commit message, given the generation record of the last push (null when there is none). */
  message(previous: GenerationRecord | null): string
  strategy: PushStrategy
  /** For strategy "branch": the new branch the merge goes to. */
  reviewBranch: string
  dryRun: boolean
  /** Called after the merge and before anything is pushed (tests make a customer push race it here). */
  beforeUpdate?(attempt: number): Promise<void>
  /**
   * The generated files IES kept of the generation a branch's `.ies/generation.json` describes
   * (push-bases.ts), or null: the merge's base whatever became of the generated refs (merge-base.ts).
   */
  keptBase?: BaseSearch['keptBase']
  /** Keeps the generated files of this push (its generation record as pushed) before the branch is updated. */
  keepBase?(files: TreeFile[]): Promise<void>
  /**
   * Called once the merge is made, before anything is pushed (not for a push its conflicts fail):
   * the branch head's tree and the tree the push would write (a plan of either: jobs/plan/).
   */
  onMerge?(trees: { branch: TreeEntries; merged: TreeEntries }, read: (oid: string) => Promise<Buffer>): Promise<void>
  /** PUSH_CACHE_DIR: where fetched repositories are kept between pushes (repository-cache.ts); none: a temporary repository per push. */
  cacheDir?: string
}

export interface PushOutcome {
  /** The commit the pushed branch points at (the branch head, unchanged, for a dry run or nothing to push). */
  commit: string | null
  /** The branch written to (the review branch for strategy "branch"). */
  branch: string
  /** False when the branch already held the merge (nothing was pushed to it). */
  changed: boolean
  /** Conflicts: for strategy "branch" (pushed with markers) and for a dry run. */
  conflicts: FileConflict[]
  /** For a dry run: the changes against the branch head. */
  changes?: FileChange[]
  /**
   * What the merge's base was: the generated files IES kept of the branch's generation, the
   * generated ref, a merged review's generated commit, an earlier version's commit, nothing.
   */
  base: BaseKind
  /** What went wrong without failing the push (the generated ref refused). */
  warnings?: string[]
  attempts: number
}

/** The error of a push whose merge conflicts; the branch is left as it was. */
export function pushConflict(branch: string, conflicts: readonly FileConflict[]): JobFailure {
  const files = conflicts.map((c) => c.file)
  const list = files.length > 5 ? `${files.slice(0, 5).join(', ')} and ${files.length - 5} more` : files.join(', ')
  return new JobFailure(
    'PUSH_CONFLICT',
    `The new generation conflicts with changes made on ${branch} in ${files.length} file(s): ${list}. Nothing was pushed; resolve them on the branch, or push to a new branch for a pull request.`,
    { conflicts: recordedConflicts(conflicts) },
  )
}

export function pushFiles(req: PushRequest): Promise<PushOutcome> {
  return withRepository(req.cacheDir, req.url, req.auth, (gitdir) => pushInto(gitdir, req))
}

async function pushInto(gitdir: string, req: PushRequest): Promise<PushOutcome> {
  // The branch goes into `gitdir` (kept between pushes: repository-cache.ts), where the commits are
  // made; the generated ref into `basedir`, so that both are fetched at once (a fetch writes the
  // repository's shallow list). A commit whose parent is only in `basedir` still pushes: the remote
  // has that parent.
  const basedir = await mkdtemp(path.join(os.tmpdir(), 'ies-push-base-'))
  const cache = {}
  try {
    await initBare(basedir)
    const session = gitSession(gitdir, basedir, req, cache)
    let defaultBranch: Promise<string | null> | undefined
    const defaultOf = () => (defaultBranch ??= session.remote(defaultBranchOf(req)))
    const branch = req.branch || (await defaultOf()) || 'main'
    const theirs = await writeFileBlobs(gitdir, req.files)
    const ctx: PushContext = { gitdir, basedir, cache, req, session, branch, defaultOf, ownRecord: req.record ?? recordOf(req.files) }
    for (let attempt = 1; ; attempt++) {
      const outcome = await pushAttempt(ctx, theirs, attempt)
      if (outcome) return outcome
    }
  } finally {
    await rm(basedir, { recursive: true, force: true })
  }
}

/** What every attempt of one push shares. */
interface PushContext {
  gitdir: string
  basedir: string
  cache: object
  req: PushRequest
  session: GitSession
  /** The branch pushed to (the request's or the remote's default). */
  branch: string
  /** The remote's default branch, asked once. */
  defaultOf: () => Promise<string | null>
  /** The generation record among the files pushed. */
  ownRecord: GenerationRecord | null
}

/** The branch as the remote holds it now, and the merge's base. */
interface BranchState {
  /** The branch head; null when the branch does not exist. */
  head: string | null
  /** The generated ref's commit (in `basedir`), and the ref it was read from. */
  generated: string | null
  keptAt: string
  /** The commit the push builds on (the head, the default branch's for a new branch, or none) and its files. */
  from: string | null
  ours: TreeEntries
  found: BaseFound
}

async function readBranch(ctx: PushContext): Promise<BranchState> {
  const { gitdir, basedir, cache, req, branch } = ctx
  const { fetch, fetchInto, read } = ctx.session
  let keptAt = generatedRef(branch)
  const fetched = await Promise.all([fetch(`refs/heads/${branch}`), fetchInto(basedir, keptAt)])
  const head = fetched[0]
  let generated = fetched[1]
  if (!generated) {
    const fallback = await fetchInto(basedir, generatedBranchRef(branch))
    if (fallback) [keptAt, generated] = [generatedBranchRef(branch), fallback]
  }
  // A branch that does not exist (deleted once its pull request was merged, or new) starts from
  // the default branch, so that a pull request from it shows only what this push changes; not
  // when that holds another environment's generation (one repository, a branch per environment).
  const startBranch = head ? branch : await ctx.defaultOf()
  const fromRef = `refs/heads/${startBranch}`
  let from = head ?? (startBranch && startBranch !== branch ? await fetch(fromRef) : null)
  let ours = await readTreeEntries(gitdir, from, cache)
  if (!head && from && !(await ofEnvironment(ours, ctx.ownRecord, read))) [from, ours] = [null, new Map()]
  const found = await findBase({
    gitdir,
    basedir,
    cache,
    from,
    generated,
    ours,
    read,
    keptBase: req.keptBase,
    deepen: (depth) => fetch(fromRef, depth),
    fetchBase: (ref) => fetchInto(basedir, ref),
  })
  return { head, generated, keptAt, from, ours, found }
}

/** One fetch, merge and push; null when the branch moved between the fetch and the push (merge again). */
async function pushAttempt(ctx: PushContext, theirs: TreeEntries, attempt: number): Promise<PushOutcome | null> {
  const { gitdir, basedir, req, branch } = ctx
  const { pushRef, read, commitOf, treeOf } = ctx.session
  const { head, generated, keptAt, from, ours, found } = await readBranch(ctx)
  const { base, lastGenerated } = found
  const previous = parseGenerationRecord(base.get(GENERATION_RECORD_PATH) && (await read(base.get(GENERATION_RECORD_PATH)!.oid)))
  const next = await withPreviousRecord(theirs, base, previous, ctx.ownRecord, read, (content) => writeBlob(gitdir, content))
  const merge = await mergeTrees({
    base,
    ours,
    theirs: next,
    read,
    write: (content) => writeBlob(gitdir, content),
    labels: { ours: branch, base: 'last generation', theirs: 'new generation' },
  })
  const outcome = { conflicts: merge.conflicts, base: found.kind, attempts: attempt } as const
  const written = req.strategy === 'branch' ? merge.marked : merge.entries
  if (req.dryRun || req.strategy === 'branch' || merge.conflicts.length === 0) await req.onMerge?.({ branch: ours, merged: written }, read)
  if (req.dryRun) {
    const changes = await changesOf(ours, merge, read)
    const target = req.strategy === 'branch' ? req.reviewBranch : branch
    return { ...outcome, commit: head, branch: target, changed: changes.length > 0 || !head, changes }
  }
  if (req.strategy === 'merge' && merge.conflicts.length > 0) throw pushConflict(branch, merge.conflicts)

  const message = req.message(previous)
  const tree = await writeEntriesTree(gitdir, written)
  const headTree = await treeOf(from)
  const warnings: string[] = []
  const generatedTree = await writeEntriesTree(gitdir, next)
  // Kept on the IES side before any ref moves: the base of the next push, whatever the host does with the refs.
  await req.keepBase?.(await filesOf(req.files, next, read))
  const withWarnings = <T extends object>(o: T) => ({ ...o, ...(warnings.length > 0 && { warnings }) })
  if (req.strategy === 'branch') {
    // The review's generated tree is kept too, and named in the review commit: once the review is
    // merged into the branch, it is the base of the next push (reviewedBase), so a conflict
    // resolved in the review stays resolved.
    const reviewGenerated = await commitOf(generatedTree, lastGenerated, `IES generated tree of ${req.reviewBranch}\n\n${message}`)
    const keptRef = await keepGenerated(
      ctx.session,
      warnings,
      [generatedRef(req.reviewBranch), generatedBranchRef(req.reviewBranch)],
      reviewGenerated,
      false,
    )
    const commit = await commitOf(tree, from, keptRef ? `${message}${REVIEW_TRAILER_NAME}: ${keptRef}\n` : message)
    await req.beforeUpdate?.(attempt)
    await pushRef(`refs/heads/${req.reviewBranch}`, commit, false)
    return withWarnings({ ...outcome, commit, branch: req.reviewBranch, changed: tree !== headTree })
  }
  const sameGenerated = generatedTree === (await treeOf(lastGenerated, basedir))
  // After a merged review the branch's ref moves to it at least.
  const generatedMoves = !sameGenerated || found.kind === 'review'
  if (tree === headTree && head && !generatedMoves) return { ...outcome, commit: head, branch, changed: false }
  // A new commit, or a branch opened again at the default branch's head when that holds the merge already.
  const commit = tree !== headTree ? await commitOf(tree, from, message) : from!
  if (commit !== head) {
    await req.beforeUpdate?.(attempt)
    try {
      await pushRef(`refs/heads/${branch}`, commit, false)
    } catch (err) {
      // The branch moved on meanwhile (refused as not a fast-forward, or no longer where we read it): merge again.
      if (attempt < MAX_ATTEMPTS && (await remoteHead(req, `refs/heads/${branch}`)) !== head) return null
      throw err
    }
  }
  if (generatedMoves) {
    const generatedCommit =
      sameGenerated && lastGenerated
        ? lastGenerated
        : await commitOf(generatedTree, lastGenerated, `IES generated tree of ${branch}\n\n${message}`)
    // The branch is pushed already. Creating the ref on a host that refuses `refs/ies/...` (branches
    // and tags only) falls back to the branch `ies/generated/<branch>`. Should the ref not move (a
    // concurrent push moved it first, or the host refuses), the push still succeeds, with a warning:
    // the next push finds its base among the generations IES kept (keptBase). A fast-forward of the
    // ref we read (a concurrent push that moved it meanwhile wins), forced only after a merged
    // review, whose generated commit follows the ref's but is not in the repository the commits are made in.
    const targets = generated ? [keptAt] : [generatedRef(branch), generatedBranchRef(branch)]
    await keepGenerated(ctx.session, warnings, targets, generatedCommit, found.kind === 'review')
  }
  return withWarnings({ ...outcome, commit, branch, changed: tree !== headTree })
}

/** Pushes a generated commit to the first of the refs the host accepts; that ref, or null (with a warning). */
async function keepGenerated(
  session: GitSession,
  warnings: string[],
  targets: string[],
  oid: string,
  force: boolean,
): Promise<string | null> {
  for (const [i, target] of targets.entries()) {
    try {
      await session.pushRef(target, oid, force)
      return target
    } catch (err) {
      if (i === targets.length - 1) warnings.push(`the generated tree could not be kept in the repository: ${(err as Error).message}`)
    }
  }
  return null
}

/** The generated files as pushed: the generation record as the tree `next` holds it (the last push's, for the same generation). */
async function filesOf(files: readonly TreeFile[], next: TreeEntries, read: (oid: string) => Promise<Buffer>): Promise<TreeFile[]> {
  const record = next.get(GENERATION_RECORD_PATH)
  const content = record && (await read(record.oid))
  return files.map((f) => (f.path === GENERATION_RECORD_PATH && content ? { ...f, content } : f))
}

/** Whether the tree's generation record, if it has one, is of the same environment as `own`. */
async function ofEnvironment(tree: TreeEntries, own: GenerationRecord | null, read: (oid: string) => Promise<Buffer>): Promise<boolean> {
  const entry = tree.get(GENERATION_RECORD_PATH)
  const record = entry ? parseGenerationRecord(await read(entry.oid)) : null
  return !record || !own || record.environmentId === own.environmentId
}

/**
 * The new generated tree, its generation record (`own`) replaced by the last push's when both describe
 * the same generation (only the time differs): an unchanged generation then changes nothing.
 */
async function withPreviousRecord(
  theirs: TreeEntries,
  base: TreeEntries,
  previous: GenerationRecord | null,
  own: GenerationRecord | null,
  read: (oid: string) => Promise<Buffer>,
  write: (content: Buffer) => Promise<string>,
): Promise<TreeEntries> {
  const ours = theirs.get(GENERATION_RECORD_PATH)
  const before = base.get(GENERATION_RECORD_PATH)
  if (!ours || !before || ours.oid === before.oid) return theirs
  if (!sameGeneration(previous, own)) return theirs
  // Into the repository the commits are made in (the base was fetched into another).
  await write(await read(before.oid))
  return new Map(theirs).set(GENERATION_RECORD_PATH, before)
}
