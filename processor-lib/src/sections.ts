/**
 * @section regions (rule 6): match begin/end (they nest), decide which lines a falsy path
 * disables, and comment those lines out in place.
 */
import type { Decorator } from './decorators.ts'
import { finding, type Finding } from './findings.ts'
import { isFalsy, lookup } from './lookup.ts'

export interface SectionPair {
  begin: Decorator
  end: Decorator
}

/**
 * Pair the `@section` lines of a file (independent of any configuration). Each mistake is reported
 * once, where it shows, and does not spread to the pairs around it: an `end` naming a path that is
 * open further out closes it, and is reported once for the sections still open inside it (crossed,
 * or a begin that never ends; the later `end` of such a section is then not reported again); an
 * `end` naming no open path is reported and closes nothing; a `begin` left open at the end of the
 * file is reported at its line.
 */
export function matchSections(decorators: readonly Decorator[], file: string): { pairs: SectionPair[]; findings: Finding[] } {
  const pairs: SectionPair[] = []
  const findings: Finding[] = []
  const stack: Decorator[] = []
  const reported = new Set<string>()
  const unmatched = (d: Decorator, message: string) =>
    findings.push(finding('UNMATCHED_SECTION', 'error', file, d.index + 1, d.path, message))
  for (const d of decorators) {
    if (d.kind !== 'section') continue
    if (d.error || !d.edge) {
      findings.push(finding('BAD_DECORATOR', 'error', file, d.index + 1, d.path || null, d.error ?? 'bad @section'))
      continue
    }
    if (d.edge === 'begin') {
      stack.push(d)
      continue
    }
    let at = stack.length - 1
    while (at >= 0 && stack[at].path !== d.path) at--
    if (at < 0) {
      if (reported.delete(d.path)) continue
      const open = stack.at(-1)
      unmatched(
        d,
        open
          ? `@section ${d.path} end has no begin (the open section is ${open.path}, line ${open.index + 1})`
          : `@section ${d.path} end without a begin`,
      )
      continue
    }
    const inner = stack.splice(at + 1)
    if (inner.length > 0) {
      const names = inner.map((o) => `@section ${o.path} begin (line ${o.index + 1})`).join(', ')
      unmatched(d, `@section ${d.path} end closes its section while ${names} is still open: end the inner section first`)
      for (const o of inner) reported.add(o.path)
    }
    pairs.push({ begin: stack.pop()!, end: d })
  }
  for (const open of stack) unmatched(open, `@section ${open.path} begin never ends`)
  return { pairs, findings }
}

export interface SectionPlan {
  /** 1 for every line strictly inside a region whose path is falsy. */
  disabled: Uint8Array
  /** For a disabled line: the column its comment marker goes to (the outermost disabled region's begin indentation). */
  markerColumn: Int32Array
  findings: Finding[]
}

export function planSections(decorators: readonly Decorator[], lineCount: number, config: unknown, file: string): SectionPlan {
  const disabled = new Uint8Array(lineCount)
  const markerColumn = new Int32Array(lineCount)
  const { pairs, findings } = matchSections(decorators, file)
  // Pairs come inner first (an end closes the innermost region), so an enclosing disabled region
  // overwrites the columns of the regions inside it.
  for (const { begin, end } of pairs) {
    if (!isFalsy(lookup(config, begin.path))) continue
    disabled.fill(1, begin.index + 1, end.index)
    markerColumn.fill(begin.indent, begin.index + 1, end.index)
  }
  return { disabled, markerColumn, findings }
}

/**
 * Comment a line out: the marker goes at the region's column (the indentation of its `begin`
 * line, or the line's own indentation when smaller), and the rest of the line follows unchanged:
 * `  foo = 1` in a region opened at column 0 becomes `#   foo = 1`. This keeps every byte, and it
 * is the form `terraform fmt` leaves alone (fmt re-indents comment lines to the nesting level).
 * Blank lines stay blank. Comment and decorator lines get the marker too, so a disabled region
 * holds no live decorator and processing the output again changes nothing.
 */
export function commentOut(line: string, marker: string, column: number): string {
  let i = 0
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++
  if (i === line.length) return line
  const at = Math.min(i, column)
  return line.slice(0, at) + marker + ' ' + line.slice(at)
}
