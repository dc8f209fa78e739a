// The generated repository's lifecycle as the UI tells it: the last push, whether an
// environment is behind and why, the outcome of a preview (dry run) or a push, and a conflict in
// words a platform engineer understands. Shapes follow the API contract of the lifecycle routes.
import type { FileChange } from './change-tree.ts'
import type { Job } from '../api/types.ts'
import type { Behind, ConflictHunk, LastPush, PushConflict, PushStrategy } from '@ies/api'
export type { Behind, ConflictHunk, LastPush, PushStrategy }

/** A conflicting file as the UI tells it: its path and hunks (the API's `PushConflict`, without the kind it does not show). */
export type FileConflict = Pick<PushConflict, 'file' | 'hunks'>

export type PushOutcome =
  | { kind: 'preview'; branch: string; templatesCommit: string; changes: FileChange[] }
  | {
      kind: 'pushed'
      commit: string
      branch: string
      strategy: PushStrategy
      changed: boolean
      templatesCommit: string
      changes: FileChange[]
    }
  | { kind: 'conflict'; message: string; conflicts: FileConflict[] }
  | { kind: 'failed'; message: string }

const str = (v: unknown, fallback = '') => (typeof v === 'string' ? v : fallback)

function changesOf(v: unknown): FileChange[] {
  if (!Array.isArray(v)) return []
  return v
    .filter((c) => c && typeof c.path === 'string' && typeof c.change === 'string')
    .map((c) => ({ path: c.path, change: c.change, diff: str(c.diff), truncated: c.truncated === true }))
}

function conflictsOf(details: unknown): FileConflict[] {
  const list = (details as { conflicts?: unknown } | undefined)?.conflicts
  if (!Array.isArray(list)) return []
  return list
    .filter((c) => c && typeof c.file === 'string')
    .map((c) => ({
      file: c.file,
      hunks: (Array.isArray(c.hunks) ? c.hunks : []).map((h: Record<string, unknown>) => ({
        line: typeof h.line === 'number' ? h.line : 0,
        ours: str(h.ours),
        base: str(h.base),
        theirs: str(h.theirs),
      })),
    }))
}

/** What a finished push or dry-run job means; null while it runs. */
export function pushOutcome(job: Job | null): PushOutcome | null {
  if (!job || job.status === 'queued' || job.status === 'running') return null
  if (job.status === 'failed') {
    const error = job.error as { code?: string; message?: string; details?: unknown } | undefined
    if (error?.code === 'PUSH_CONFLICT') {
      return {
        kind: 'conflict',
        message: str(error.message, 'The push would overwrite your changes.'),
        conflicts: conflictsOf(error.details),
      }
    }
    return { kind: 'failed', message: str(error?.message, 'The job failed.') }
  }
  const r = job.result ?? {}
  if (r.dryRun === true) {
    return { kind: 'preview', branch: str(r.branch), templatesCommit: str(r.templatesCommit), changes: changesOf(r.changes) }
  }
  return {
    kind: 'pushed',
    commit: str(r.commit),
    branch: str(r.branch),
    strategy: r.strategy === 'branch' ? 'branch' : 'merge',
    changed: r.changed !== false,
    templatesCommit: str(r.templatesCommit),
    changes: changesOf(r.changes),
  }
}

const short = (sha: string) => sha.slice(0, 7)

/** Why an environment is behind, one sentence each; empty when it is current. */
export function behindReasons(behind: Behind | null | undefined, lastPush: LastPush | null | undefined): string[] {
  if (!behind || !lastPush) return []
  const out: string[] = []
  if (behind.templates)
    out.push(
      `The templates changed since the last push (it was made from templates ${short(lastPush.templatesCommit)}): an update brings their changes.`,
    )
  if (behind.configuration) out.push('The configuration was edited since the last push: an update brings your edits to the repository.')
  return out
}

export const isBehind = (behind: Behind | null | undefined) => !!behind && (behind.templates || behind.configuration)

/** One conflicting hunk in plain words. */
export function describeHunk(file: string, h: ConflictHunk): string {
  const lines = (text: string) => {
    const n = text === '' ? 0 : text.replace(/\n$/, '').split('\n').length
    return n === 1 ? '1 line' : `${n} lines`
  }
  const where = h.line > 0 ? `Around line ${h.line} of ${file}` : `In ${file}`
  if (h.ours === '' && h.base !== '')
    return `${where}, you removed ${lines(h.base)} that the templates now change. Decide whether to keep them removed or take the new version.`
  if (h.theirs === '' && h.base !== '')
    return `${where}, you changed ${lines(h.base)} that the templates no longer produce. Decide whether to keep your version or drop it.`
  return `${where}, you changed ${lines(h.ours)} that the templates also change. Both versions are below; IES did not choose between them.`
}

/** A conflict's summary sentence. */
export function describeConflict(conflicts: FileConflict[]): string {
  const n = conflicts.length
  const files = n === 1 ? `1 file (${conflicts[0].file})` : `${n} files`
  return `Nothing was pushed: ${files} changed both in your repository and in the new generation, in the same lines. Your branch is untouched. Resolve it in the repository, or push to a new branch and resolve it in a pull request.`
}

export interface EnvironmentUpgrade {
  id: string
  name: string
  lastPush: LastPush | null
  behind: Behind
  /** The templates version the environment is pinned to; absent: it follows the newest. */
  templatesPin?: string
  /** Stored values the current catalog refuses: an upgrade skips the environment unless the migrations of the version it goes to move them. */
  problems?: { field: string; reason: string }[]
}
