// What a push's job record keeps of the customer's files: the hunks of a conflict and the diffs of a
// dry run are copies of them. Capped (files, hunks, bytes), and every line that looks like a secret
// (core/logger.ts's looksLikeSecret, the rules of the log's redaction) is replaced by a marker. The
// record and these details go together when retention lets the job go (queue/retention.ts).
import { looksLikeSecret } from '../../core/logger.ts'
import type { FileChange } from './push-preview.ts'
import type { FileConflict } from './tree-merge.ts'

/** Files with conflicts whose hunks a record keeps (the others are named without hunks). */
export const MAX_RECORDED_CONFLICTS = 50
/** Hunks kept per file. */
export const MAX_RECORDED_HUNKS = 20
/** Bytes of hunks, and of diffs, a record keeps in all. */
export const MAX_RECORDED_BYTES = 512 * 1024

export const LEFT_OUT = '[line left out: it looks like a secret]'

/** The text with each line that looks like a secret replaced; `prefix` characters of a line (a diff's +/-/space) are kept. */
export function withoutSecrets(text: string, prefix = 0): string {
  if (!text) return text
  return text
    .split('\n')
    .map((line) => (looksLikeSecret(line.slice(prefix)) ? `${line.slice(0, prefix)}${LEFT_OUT}` : line))
    .join('\n')
}

/** The conflicts as a job record keeps them: secrets left out, at most MAX_RECORDED_HUNKS per file and MAX_RECORDED_BYTES in all. */
export function recordedConflicts(conflicts: readonly FileConflict[]): FileConflict[] {
  let budget = MAX_RECORDED_BYTES
  return conflicts.map((c, i) => {
    if (i >= MAX_RECORDED_CONFLICTS) return { ...c, hunks: [] }
    const hunks = []
    for (const h of c.hunks.slice(0, MAX_RECORDED_HUNKS)) {
      const hunk = { line: h.line, ours: withoutSecrets(h.ours), base: withoutSecrets(h.base), theirs: withoutSecrets(h.theirs) }
      budget -= hunk.ours.length + hunk.base.length + hunk.theirs.length
      if (budget < 0) break
      hunks.push(hunk)
    }
    return { ...c, hunks }
  })
}

/** The dry run's changes as a job record keeps them: secrets left out of the diffs, which stop (`truncated`) past MAX_RECORDED_BYTES in all. */
export function recordedChanges(changes: readonly FileChange[]): FileChange[] {
  let budget = MAX_RECORDED_BYTES
  return changes.map((c) => {
    const diff = withoutSecrets(c.diff, 1)
    budget -= diff.length
    return budget < 0 ? { ...c, diff: '', truncated: true } : { ...c, diff }
  })
}
