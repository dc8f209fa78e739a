// The three-way merge of whole trees, file by file: base = the generated tree of the last push,
// ours = the branch head, theirs = the new generated tree.
//  - a file both sides have alike, or that only one side changed (added, edited, deleted), takes that
//    side: a file the customer added is kept; a file the generation no longer produces is deleted
//    only when the customer left it as generated;
//  - a text file both sides changed is merged line by line (line-merge.ts); overlapping changes are
//    a conflict with its hunks;
//  - a file one side deleted and the other changed, and a binary file both changed, are conflicts.
// A conflicted file keeps the branch's version in `entries` (nothing is ever overwritten) and holds
// the conflict markers in `marked` (what a push to a review branch carries).
import { mergeText, type ConflictHunk, type MarkerLabels } from './line-merge.ts'
import type { BlobEntry, TreeEntries } from '@ies/processor-lib/git-objects'

export type ConflictKind = 'content' | 'deleted-in-templates' | 'deleted-in-branch' | 'binary'

export interface FileConflict {
  file: string
  /** What conflicts: overlapping edits, an edit against a deletion, or a binary file both changed. */
  kind: ConflictKind
  hunks: ConflictHunk[]
}

export interface TreeMerge {
  /** The merge, conflicted files as the branch has them. */
  entries: TreeEntries
  /** The merge, conflicted text files with conflict markers. */
  marked: TreeEntries
  conflicts: FileConflict[]
}

export interface MergeTreesOptions {
  base: TreeEntries
  ours: TreeEntries
  theirs: TreeEntries
  read(oid: string): Promise<Buffer>
  /** Stores a merged file; its blob id. */
  write(content: Buffer): Promise<string>
  labels: MarkerLabels
}

/** The longest text of a conflict hunk kept in the job's error (a whole file of a deletion conflict may be large). */
export const MAX_HUNK_TEXT = 16 * 1024

const CONFLICT = Symbol('conflict')

/** The three-way pick of one value: the side that changed, the common value, or CONFLICT. */
function pick<T>(base: T, ours: T, theirs: T, same: (x: T, y: T) => boolean): T | typeof CONFLICT {
  if (same(ours, theirs)) return ours
  if (same(base, theirs)) return ours
  if (same(base, ours)) return theirs
  return CONFLICT
}

const sameEntry = (x: BlobEntry | undefined, y: BlobEntry | undefined) => x === y || (!!x && !!y && x.oid === y.oid && x.mode === y.mode)

/** Git's test: a NUL byte in the first 8000 bytes. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0)
}

const capped = (text: string) =>
  text.length > MAX_HUNK_TEXT ? `${text.slice(0, MAX_HUNK_TEXT)}\n[cut at ${MAX_HUNK_TEXT} characters]\n` : text

export async function mergeTrees(opts: MergeTreesOptions): Promise<TreeMerge> {
  const { base, ours, theirs } = opts
  const entries: TreeEntries = new Map()
  const marked: TreeEntries = new Map()
  const conflicts: FileConflict[] = []
  const paths = [...new Set([...base.keys(), ...ours.keys(), ...theirs.keys()])].sort()
  const text = async (entry: BlobEntry | undefined) => (entry ? await opts.read(entry.oid) : Buffer.alloc(0))

  for (const file of paths) {
    const b = base.get(file)
    const o = ours.get(file)
    const t = theirs.get(file)
    const keep = (entry: BlobEntry | undefined) => {
      if (!entry) return
      entries.set(file, entry)
      marked.set(file, entry)
    }
    const whole = pick(b, o, t, sameEntry)
    if (whole !== CONFLICT) {
      keep(whole)
      continue
    }
    // All three differ.
    if (!o || !t) {
      const [bc, oc, tc] = await Promise.all([text(b), text(o), text(t)])
      const binary = [bc, oc, tc].some(isBinary)
      const hunk = binary
        ? []
        : [{ line: 1, ours: capped(oc.toString('utf8')), base: capped(bc.toString('utf8')), theirs: capped(tc.toString('utf8')) }]
      conflicts.push({ file, kind: binary ? 'binary' : o ? 'deleted-in-templates' : 'deleted-in-branch', hunks: hunk })
      keep(o)
      continue
    }
    const mode = pick(b?.mode, o.mode, t.mode, (x, y) => x === y)
    const merged = { mode: mode === CONFLICT || mode === undefined ? o.mode : mode }
    const oid = pick(b?.oid, o.oid, t.oid, (x, y) => x === y)
    if (oid !== CONFLICT && oid !== undefined) {
      keep({ oid, ...merged })
      continue
    }
    const [bc, oc, tc] = await Promise.all([text(b), text(o), text(t)])
    if ([bc, oc, tc].some(isBinary)) {
      conflicts.push({ file, kind: 'binary', hunks: [] })
      keep(o)
      continue
    }
    const result = mergeText(oc.toString('utf8'), bc.toString('utf8'), tc.toString('utf8'), opts.labels)
    if (result.clean) {
      keep({ oid: await opts.write(Buffer.from(result.text, 'utf8')), ...merged })
      continue
    }
    conflicts.push({
      file,
      kind: 'content',
      hunks: result.hunks.map((h) => ({ line: h.line, ours: capped(h.ours), base: capped(h.base), theirs: capped(h.theirs) })),
    })
    entries.set(file, o)
    marked.set(file, { oid: await opts.write(Buffer.from(result.marked, 'utf8')), ...merged })
  }
  return { entries, marked, conflicts }
}
