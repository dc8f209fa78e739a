// The line-level three-way merge of one text file, as `git merge-file` does it: lines changed on one
// side only are taken from that side, lines both sides changed the same way once, and lines both
// sides changed differently are a conflict. The diff3 algorithm is node-diff3's (`diff3Merge`, with
// false conflicts, identical changes on both sides, excluded); this module only cuts contents into
// lines, refines a conflict between two additions to the lines that really differ, and writes the
// conflict markers for a merge pushed to a branch for review.
//
// The merge works on bytes, not on decoded text: each byte is one character of a Latin-1 string
// (a lossless mapping, and `\n` is the same byte in every ASCII-compatible encoding), so text in any
// encoding, CRLF line ends and a missing final newline come out byte for byte as they went in.
import { isUtf8 } from 'node:buffer'
import { diff3Merge, diffComm } from 'node-diff3'

/** One conflicting hunk: `line` is 1-based in ours (the branch's file); the texts are whole lines. */
export interface ConflictHunk {
  line: number
  ours: string
  base: string
  theirs: string
}

export type TextMerge = { clean: true; content: Buffer } | { clean: false; hunks: ConflictHunk[]; marked: Buffer }

export interface MarkerLabels {
  ours: string
  base: string
  theirs: string
}

/** Bytes as a string of one character per byte, and back. */
const BYTES = 'latin1'

/** Lines with their line ends kept, so that joining them gives the text back byte for byte. */
export function linesOf(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/)
}

type Region = { ok: string[] } | { conflict: { a: string[]; aIndex: number; o: string[]; b: string[]; bIndex: number } }

/**
 * A conflict whose base is empty (both sides added text at the same place, as on the first push
 * into a repository that already held a file of the same name) is cut into the runs where ours and
 * theirs agree and the runs where they differ: only the latter are conflicts.
 */
function refined(region: Region): Region[] {
  if (!('conflict' in region) || region.conflict.o.length > 0) return [region]
  const out: Region[] = []
  let line = region.conflict.aIndex
  let theirsLine = region.conflict.bIndex
  for (const part of diffComm(region.conflict.a, region.conflict.b)) {
    if (part.common) {
      out.push({ ok: part.common })
      line += part.common.length
      theirsLine += part.common.length
    } else {
      out.push({ conflict: { a: part.buffer1, aIndex: line, o: [], b: part.buffer2, bIndex: theirsLine } })
      line += part.buffer1.length
      theirsLine += part.buffer2.length
    }
  }
  return out
}

/**
 * How a line of `lines` ends, as git's xdiff judges it for line `i`: 1 for CRLF, 0 for LF, -1 when
 * it cannot tell (no lines, or a single line without a line end; a last line without one is judged
 * by the line before).
 */
function eolCrlf(lines: readonly string[], i: number): -1 | 0 | 1 {
  if (lines.length === 0) return -1
  const crlf = (line: string) => (line.endsWith('\r\n') ? 1 : 0)
  if (i < lines.length - 1) return crlf(lines[i])
  if (lines[i].endsWith('\n')) return crlf(lines[i])
  return i === 0 ? -1 : crlf(lines[i - 1])
}

/**
 * The line end of conflict markers, as `git merge-file` picks it: CRLF when the lines before the
 * conflict in ours and theirs (or their first lines) and the base's first line all end in CRLF or
 * cannot tell, LF otherwise.
 */
function markerEol(ours: readonly string[], oursAt: number, theirs: readonly string[], theirsAt: number, base: readonly string[]): string {
  const votes = [() => eolCrlf(ours, Math.max(oursAt - 1, 0)), () => eolCrlf(theirs, Math.max(theirsAt - 1, 0)), () => eolCrlf(base, 0)]
  let needsCr: number = 1
  for (const vote of votes) {
    needsCr = vote()
    if (needsCr === 0) break
  }
  return needsCr === 1 ? '\r\n' : '\n'
}

/** The bytes of a part of a file as text for a person: UTF-8 when the whole file is, else Latin-1 (lossless). */
export const textDecoder = (...contents: Buffer[]) => {
  const encoding = contents.every((c) => isUtf8(c)) ? 'utf8' : BYTES
  return (lines: readonly string[]) => Buffer.from(lines.join(''), BYTES).toString(encoding)
}

/** The merge of ours and theirs from their common base, byte for byte. */
export function mergeText(ours: Buffer, base: Buffer, theirs: Buffer, labels: MarkerLabels): TextMerge {
  const [a, o, b] = [ours, base, theirs].map((c) => linesOf(c.toString(BYTES)))
  const regions = (diff3Merge(a, o, b) as Region[]).flatMap(refined)
  const readable = textDecoder(ours, base, theirs)
  const label = (text: string) => Buffer.from(text, 'utf8').toString(BYTES)
  const hunks: ConflictHunk[] = []
  const parts: string[] = []
  for (const region of regions) {
    if ('ok' in region) {
      parts.push(...region.ok)
      continue
    }
    const conflict = region.conflict
    hunks.push({ line: conflict.aIndex + 1, ours: readable(conflict.a), base: readable(conflict.o), theirs: readable(conflict.b) })
    const eol = markerEol(a, conflict.aIndex, b, conflict.bIndex, o)
    /** A side's lines; a last line without a line end gets one, so that the next marker starts a line. */
    const side = (lines: string[]) => {
      const text = lines.join('')
      return text === '' || text.endsWith('\n') ? text : `${text}${eol}`
    }
    parts.push(
      `<<<<<<< ${label(labels.ours)}${eol}`,
      side(conflict.a),
      `||||||| ${label(labels.base)}${eol}`,
      side(conflict.o),
      `=======${eol}`,
      side(conflict.b),
      `>>>>>>> ${label(labels.theirs)}${eol}`,
    )
  }
  const content = Buffer.from(parts.join(''), BYTES)
  if (hunks.length === 0) return { clean: true, content }
  return { clean: false, hunks, marked: content }
}
