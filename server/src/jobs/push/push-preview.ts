// The preview of a push (a dry run): each file the merge would change on the branch, as `added`,
// `modified`, `deleted` or `conflict`, with a unified diff against the branch head made by the `diff`
// package (createTwoFilesPatch, 3 lines of context). A diff longer than DIFF_CAP characters is cut at
// a line end and flagged `truncated`; a binary file's diff is one line saying it differs; a changed
// mode (an execute bit, a file turned into a link) shows as git shows it. A conflicted file's diff
// shows the conflict markers a push to a new branch would carry. The preview is made from the same
// entries the push writes, so it shows exactly what the push would write.
import { createTwoFilesPatch } from 'diff'
import { isUtf8 } from 'node:buffer'
import type { EntryMode, TreeEntries, TreeEntry } from '@ies/processor-lib/git-objects'
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

/** An entry as a diff shows it: its mode, and its blob (a submodule: the line git shows for it). */
export interface Shown {
  mode: EntryMode
  content: Buffer
}

async function shown(entry: TreeEntry | undefined, read: (oid: string) => Promise<Buffer>): Promise<Shown | null> {
  if (!entry) return null
  const content = entry.mode === '160000' ? Buffer.from(`Subproject commit ${entry.oid}\n`) : await read(entry.oid)
  return { mode: entry.mode, content }
}

/** The mode lines of git's extended diff header. */
function modeLines(before: Shown | null, after: Shown | null): string {
  if (!before) return after ? `new file mode ${after.mode}\n` : ''
  if (!after) return `deleted file mode ${before.mode}\n`
  return before.mode === after.mode ? '' : `old mode ${before.mode}\nnew mode ${after.mode}\n`
}

/**
 * The unified diff of an entry, with git's mode lines. Text is shown as UTF-8 when both sides are
 * valid UTF-8, else both sides byte for byte as Latin-1 (flagged in the file headers): a byte the
 * push changes is always a changed character, never two bytes decoded into the same U+FFFD.
 */
export function unifiedDiff(path: string, before: Shown | null, after: Shown | null): string {
  const from = before ? `a/${path}` : '/dev/null'
  const to = after ? `b/${path}` : '/dev/null'
  const modes = modeLines(before, after)
  const [old, now] = [before?.content ?? Buffer.alloc(0), after?.content ?? Buffer.alloc(0)]
  if (before && after && old.equals(now)) return modes
  if (isBinary(old) || isBinary(now)) return `${modes}Binary files ${from} and ${to} differ\n`
  const utf8 = isUtf8(old) && isUtf8(now)
  const encoding = utf8 ? 'utf8' : 'latin1'
  const header = utf8 ? undefined : 'not UTF-8: each byte shown as one Latin-1 character'
  return modes + createTwoFilesPatch(from, to, old.toString(encoding), now.toString(encoding), header, header, { context: 3 })
}

/** What a file against a folder shows in a preview: nothing of it is written. */
const fileFolderNote = (path: string) =>
  `${path} is a file on one side and a folder on the other: the branch keeps its version of ${path} and all below it\n`

/** What the merge changes on the branch whose tree is `ours`, sorted by path. */
export async function changesOf(ours: TreeEntries, merge: TreeMerge, read: (oid: string) => Promise<Buffer>): Promise<FileChange[]> {
  const conflicted = new Map(merge.conflicts.map((c) => [c.file, c.kind]))
  const paths = [...new Set([...ours.keys(), ...merge.marked.keys(), ...conflicted.keys()])].sort()
  const changes: FileChange[] = []
  for (const path of paths) {
    const before = ours.get(path)
    const after = merge.marked.get(path)
    const kind = conflicted.get(path)
    if (!kind && before?.oid === after?.oid && before?.mode === after?.mode) continue
    const change: ChangeKind = kind ? 'conflict' : !before ? 'added' : !after ? 'deleted' : 'modified'
    const diff = kind === 'file-folder' ? fileFolderNote(path) : unifiedDiff(path, await shown(before, read), await shown(after, read))
    changes.push({ path, change, ...cappedDiff(diff) })
  }
  return changes
}
