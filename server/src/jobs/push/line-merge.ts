// The line-level three-way merge of one text file, as `git merge-file` does it: lines changed on one
// side only are taken from that side, lines both sides changed the same way once, and lines both
// sides changed differently are a conflict. The diff3 algorithm is node-diff3's (`diff3Merge`, with
// false conflicts, identical changes on both sides, excluded); this module only cuts texts into
// lines, refines a conflict between two additions to the lines that really differ, and writes the
// conflict markers for a merge pushed to a branch for review.
import { diff3Merge, diffComm } from 'node-diff3'

/** One conflicting hunk: `line` is 1-based in ours (the branch's file); the texts are whole lines. */
export interface ConflictHunk {
  line: number
  ours: string
  base: string
  theirs: string
}

export type TextMerge = { clean: true; text: string } | { clean: false; hunks: ConflictHunk[]; marked: string }

export interface MarkerLabels {
  ours: string
  base: string
  theirs: string
}

/** Lines with their line ends kept, so that joining them gives the text back byte for byte. */
export function linesOf(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/)
}

type Region = { ok: string[] } | { conflict: { a: string[]; aIndex: number; o: string[]; b: string[] } }

/**
 * A conflict whose base is empty (both sides added text at the same place, as on the first push
 * into a repository that already held a file of the same name) is cut into the runs where ours and
 * theirs agree and the runs where they differ: only the latter are conflicts.
 */
function refined(region: Region): Region[] {
  if (!('conflict' in region) || region.conflict.o.length > 0) return [region]
  const out: Region[] = []
  let line = region.conflict.aIndex
  for (const part of diffComm(region.conflict.a, region.conflict.b)) {
    if (part.common) {
      out.push({ ok: part.common })
      line += part.common.length
    } else {
      out.push({ conflict: { a: part.buffer1, aIndex: line, o: [], b: part.buffer2 } })
      line += part.buffer1.length
    }
  }
  return out
}

/** The merge of ours and theirs from their common base. */
export function mergeText(ours: string, base: string, theirs: string, labels: MarkerLabels): TextMerge {
  const regions = (diff3Merge(linesOf(ours), linesOf(base), linesOf(theirs)) as Region[]).flatMap(refined)
  const hunks: ConflictHunk[] = []
  const parts: string[] = []
  for (const region of regions) {
    if ('ok' in region) {
      parts.push(...region.ok)
      continue
    }
    const { a, aIndex, o, b } = region.conflict
    hunks.push({ line: aIndex + 1, ours: a.join(''), base: o.join(''), theirs: b.join('') })
    const side = (lines: string[]) => {
      const text = lines.join('')
      return text === '' || text.endsWith('\n') ? text : `${text}\n`
    }
    parts.push(`<<<<<<< ${labels.ours}\n`, side(a), `||||||| ${labels.base}\n`, side(o), '=======\n', side(b), `>>>>>>> ${labels.theirs}\n`)
  }
  if (hunks.length === 0) return { clean: true, text: parts.join('') }
  return { clean: false, hunks, marked: parts.join('') }
}
