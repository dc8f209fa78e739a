// The preview of a push (a dry run): each file the merge would change on the branch, as `added`,
// `modified`, `deleted` or `conflict`, with a unified diff against the branch head made by the `diff`
// package (createTwoFilesPatch, 3 lines of context). A diff longer than DIFF_CAP characters is cut at
// a line end and flagged `truncated`; a binary file's diff is one line saying it differs. A conflicted
// file's diff shows the conflict markers a push to a new branch would carry.
import { createTwoFilesPatch } from 'diff'
import type { TreeEntries } from '@ies/processor-lib/git-objects'
import { isBinary, type TreeMerge } from './tree-merge.ts'

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'conflict'

export interface FileChange {
  path: string
  change: ChangeKind
  diff: string
  truncated: boolean
}

/** The longest diff of one file kept in a preview, in characters. */
export const DIFF_CAP = 64 * 1024

export function cappedDiff(diff: string, cap = DIFF_CAP): { diff: string; truncated: boolean } {
  if (diff.length <= cap) return { diff, truncated: false }
  const cut = diff.lastIndexOf('\n', cap)
  return { diff: diff.slice(0, cut > 0 ? cut + 1 : cap), truncated: true }
}

export function unifiedDiff(path: string, before: Buffer | null, after: Buffer | null): string {
  const from = before ? `a/${path}` : '/dev/null'
  const to = after ? `b/${path}` : '/dev/null'
  if ((before && isBinary(before)) || (after && isBinary(after))) return `Binary files ${from} and ${to} differ\n`
  return createTwoFilesPatch(from, to, before?.toString('utf8') ?? '', after?.toString('utf8') ?? '', undefined, undefined, { context: 3 })
}

/** What the merge changes on the branch whose tree is `ours`, sorted by path. */
export async function changesOf(ours: TreeEntries, merge: TreeMerge, read: (oid: string) => Promise<Buffer>): Promise<FileChange[]> {
  const conflicted = new Set(merge.conflicts.map((c) => c.file))
  const paths = [...new Set([...ours.keys(), ...merge.marked.keys(), ...conflicted])].sort()
  const changes: FileChange[] = []
  for (const path of paths) {
    const before = ours.get(path)
    const after = merge.marked.get(path)
    const isConflict = conflicted.has(path)
    if (!isConflict && before?.oid === after?.oid && before?.mode === after?.mode) continue
    const change: ChangeKind = isConflict ? 'conflict' : !before ? 'added' : !after ? 'deleted' : 'modified'
    const diff = unifiedDiff(path, before ? await read(before.oid) : null, after ? await read(after.oid) : null)
    changes.push({ path, change, ...cappedDiff(diff) })
  }
  return changes
}
