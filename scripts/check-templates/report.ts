// The report of `check:templates`: each finding once, grouped by file, as `file:line: CODE message`
// with a one-line fix hint below it (FIX_HINTS in processor-lib/src/findings.ts).
import { FIX_HINTS, messageAfterSite, type Finding } from '@ies/processor-lib'

/**
 * Merge findings from several runs: one per file, line, code and rule (the first message kept). `seenIn`
 * collects, per finding, the configurations of the gate matrix that produced it.
 */
export class FindingSet {
  private readonly byKey = new Map<string, { finding: Finding; seenIn: string[] }>()

  add(findings: readonly Finding[], seenIn?: string): void {
    for (const f of findings) {
      const key = `${f.file}\0${f.line}\0${f.code}\0${(f as ReportFinding).rule ?? ''}`
      const entry = this.byKey.get(key)
      if (!entry) this.byKey.set(key, { finding: f, seenIn: seenIn ? [seenIn] : [] })
      else if (seenIn && entry.seenIn.length > 0 && !entry.seenIn.includes(seenIn)) entry.seenIn.push(seenIn)
    }
  }

  get size(): number {
    return this.byKey.size
  }

  /** Sorted by file, line, code; a finding found only under some configurations names them. */
  list(allConfigurations: number): Finding[] {
    return [...this.byKey.values()]
      .map(({ finding, seenIn }) =>
        seenIn.length > 0 && seenIn.length < allConfigurations
          ? { ...finding, message: `${finding.message} (configuration: ${seenIn.join(', ')})` }
          : finding,
      )
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)))
  }
}

/** A finding with the rule it breaks (several rules may fail at one line) and its own fix hint. */
export type ReportFinding = Finding & { rule?: string; fix?: string }

/** The printed report: a heading per file, then `file:line: CODE message` and `  fix: ...`. */
export function formatReport(findings: readonly Finding[]): string {
  let out = ''
  let file: string | null = null
  for (const f of findings) {
    if (f.file !== file) {
      file = f.file
      out += `\n${file}\n`
    }
    out += `${f.file}:${f.line}: ${f.code} ${messageAfterSite(f)}\n    fix: ${(f as ReportFinding).fix || FIX_HINTS[f.code]}\n`
  }
  return out
}
