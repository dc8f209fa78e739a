// The three-way merge of whole trees, entry by entry: base = the generated tree of the last push,
// ours = the branch head, theirs = the new generated tree. Every entry of the branch takes part:
// files, executables, symbolic links and submodules.
//  - an entry both sides have alike, or that only one side changed (added, edited, deleted, its
//    mode changed), takes that side: an entry the customer added or owns alone (a link, a
//    submodule, `.gitmodules`, any path the generation does not produce) is kept as it is; a file the
//    generation no longer produces is deleted only when the customer left it as generated;
//  - a text file both sides changed is merged line by line, byte for byte (line-merge.ts);
//    overlapping changes are a conflict with its hunks; its mode is merged on its own (an execute
//    bit the customer set is kept);
//  - a file one side deleted and the other changed, and a binary file, link or submodule both
//    changed, are conflicts;
//  - the generation record (`.ies/generation.json`) belongs to IES: the new generation's wins;
//  - a path that would be a file on one side and a folder on the other (the customer's file
//    `extras`, the templates' `extras/NOTES.md`, or the other way round) is a conflict of that path:
//    a tree cannot hold both, so that part of the tree stays as the branch has it.
// A conflicted entry keeps the branch's version in `entries` (nothing is ever overwritten) and holds
// the conflict markers in `marked` (what a push to a review branch carries).
import { isRegularFile, type TreeEntries, type TreeEntry } from '@ies/processor-lib/git-objects'
import { GENERATION_RECORD_PATH } from './generation-record.ts'
import { mergeText, textDecoder, type ConflictHunk, type MarkerLabels } from './line-merge.ts'
import type { ConflictKind } from '@ies/api/schemas/push'

export interface FileConflict {
  file: string
  /**
   * What conflicts: overlapping edits, an edit against a deletion, a binary file (or link, or
   * submodule) both changed, or a path that is a file on one side and a folder on the other.
   */
  kind: ConflictKind
  hunks: ConflictHunk[]
}

export interface TreeMerge {
  /** The merge, conflicted entries as the branch has them. */
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

const sameEntry = (x: TreeEntry | undefined, y: TreeEntry | undefined) => x === y || (!!x && !!y && x.oid === y.oid && x.mode === y.mode)

/** Git's test: a NUL byte in the first 8000 bytes. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0)
}

const capped = (text: string) =>
  text.length > MAX_HUNK_TEXT ? `${text.slice(0, MAX_HUNK_TEXT)}\n[cut at ${MAX_HUNK_TEXT} characters]\n` : text

/** The merge being built: both results, and the conflicts found so far. */
class Merged {
  readonly entries: TreeEntries = new Map()
  readonly marked: TreeEntries = new Map()
  readonly conflicts: FileConflict[] = []

  keep(file: string, entry: TreeEntry | undefined, marked = entry) {
    if (entry) this.entries.set(file, entry)
    if (marked) this.marked.set(file, marked)
  }

  conflict(file: string, kind: ConflictKind, hunks: ConflictHunk[] = []) {
    this.conflicts.push({
      file,
      kind,
      hunks: hunks.map((h) => ({ ...h, ours: capped(h.ours), base: capped(h.base), theirs: capped(h.theirs) })),
    })
  }
}

/** One path whose base, ours and theirs all differ. */
async function mergeChanged(merged: Merged, file: string, [b, o, t]: (TreeEntry | undefined)[], opts: MergeTreesOptions): Promise<void> {
  const contentOf = async (entry: TreeEntry | undefined) => (entry ? await opts.read(entry.oid) : Buffer.alloc(0))
  const present = [b, o, t].filter((e): e is TreeEntry => !!e)
  // Links and submodules are never merged line by line; neither are binary files.
  if (!present.every(isRegularFile)) {
    merged.conflict(file, 'binary')
    merged.keep(file, o)
    return
  }
  const [bc, oc, tc] = await Promise.all([contentOf(b), contentOf(o), contentOf(t)])
  const binary = [bc, oc, tc].some(isBinary)
  if (!o || !t) {
    const readable = textDecoder(bc, oc, tc)
    const whole = (content: Buffer) => readable([content.toString('latin1')])
    const hunks = binary ? [] : [{ line: 1, ours: whole(oc), base: whole(bc), theirs: whole(tc) }]
    merged.conflict(file, binary ? 'binary' : o ? 'deleted-in-templates' : 'deleted-in-branch', hunks)
    merged.keep(file, o)
    return
  }
  const mode = pick(b?.mode, o.mode, t.mode, (x, y) => x === y)
  const entryMode = mode === CONFLICT || mode === undefined ? o.mode : mode
  const oid = pick(b?.oid, o.oid, t.oid, (x, y) => x === y)
  if (oid !== CONFLICT && oid !== undefined) {
    merged.keep(file, { oid, mode: entryMode })
    return
  }
  if (binary) {
    merged.conflict(file, 'binary')
    merged.keep(file, o)
    return
  }
  const result = mergeText(oc, bc, tc, opts.labels)
  if (result.clean) {
    merged.keep(file, { oid: await opts.write(result.content), mode: entryMode })
    return
  }
  merged.conflict(file, 'content', result.hunks)
  merged.keep(file, o, { oid: await opts.write(result.marked), mode: entryMode })
}

/** The shortest path of the merge that is an entry and also a folder of other entries, or undefined. */
function fileAndFolder(entries: TreeEntries): string | undefined {
  const folders = new Set<string>()
  for (const file of entries.keys()) {
    for (let cut = file.indexOf('/'); cut !== -1; cut = file.indexOf('/', cut + 1)) folders.add(file.slice(0, cut))
  }
  return [...entries.keys()].filter((file) => folders.has(file)).sort((x, y) => x.length - y.length)[0]
}

/** A file against a folder: the path and all below it stay as the branch has them, and the path is a conflict. */
function keepBranchAt(merged: Merged, ours: TreeEntries, path: string): void {
  const within = (file: string) => file === path || file.startsWith(`${path}/`)
  for (const map of [merged.entries, merged.marked]) for (const file of [...map.keys()]) if (within(file)) map.delete(file)
  for (const [file, entry] of ours) if (within(file)) merged.keep(file, entry)
  merged.conflict(path, 'file-folder')
}

export async function mergeTrees(opts: MergeTreesOptions): Promise<TreeMerge> {
  const { base, ours, theirs } = opts
  const merged = new Merged()
  const paths = [...new Set([...base.keys(), ...ours.keys(), ...theirs.keys()])].sort()
  for (const file of paths) {
    const sides = [base.get(file), ours.get(file), theirs.get(file)]
    const [b, o, t] = sides
    if (file === GENERATION_RECORD_PATH && t) {
      merged.keep(file, t)
      continue
    }
    const whole = pick(b, o, t, sameEntry)
    if (whole !== CONFLICT) merged.keep(file, whole)
    else await mergeChanged(merged, file, sides, opts)
  }
  // The branch's tree has no such path: each comes from a side's file meeting the other's folder.
  // Each round settles the shortest such path for good (below it all is the branch's, a valid tree).
  for (let path = fileAndFolder(merged.entries), rounds = 0; path !== undefined; path = fileAndFolder(merged.entries)) {
    if (++rounds > paths.length) throw new Error(`the merge keeps a file and a folder at ${path}`)
    keepBranchAt(merged, ours, path)
  }
  merged.conflicts.sort((x, y) => (x.file < y.file ? -1 : x.file > y.file ? 1 : 0))
  return { entries: merged.entries, marked: merged.marked, conflicts: merged.conflicts }
}
