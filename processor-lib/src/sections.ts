/**
 * @section regions (rule 6): match begin/end (they nest), decide which lines a falsy path
 * disables, and comment those lines out in place.
 */
import type { Decorator } from './decorators.ts'
import { finding, type Finding } from './findings.ts'
import { isFalsy, lookup } from './lookup.ts'

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
  const findings: Finding[] = []
  const stack: { dec: Decorator; falsy: boolean }[] = []
  for (const d of decorators) {
    if (d.kind !== 'section') continue
    if (d.error || !d.edge) {
      findings.push(finding('BAD_DECORATOR', 'error', file, d.index + 1, d.path || null, d.error ?? 'bad @section'))
      continue
    }
    if (d.edge === 'begin') {
      stack.push({ dec: d, falsy: isFalsy(lookup(config, d.path)) })
      continue
    }
    const open = stack.pop()
    if (!open) {
      findings.push(finding('UNMATCHED_SECTION', 'error', file, d.index + 1, d.path, `@section ${d.path} end without a begin`))
      continue
    }
    if (open.dec.path !== d.path) {
      findings.push(
        finding(
          'UNMATCHED_SECTION',
          'error',
          file,
          d.index + 1,
          d.path,
          `@section ${d.path} end closes @section ${open.dec.path} begin (line ${open.dec.index + 1})`,
        ),
      )
    }
    if (open.falsy) {
      // inner regions end first; an enclosing disabled region then overwrites their column
      disabled.fill(1, open.dec.index + 1, d.index)
      markerColumn.fill(open.dec.indent, open.dec.index + 1, d.index)
    }
  }
  for (const open of stack) {
    findings.push(
      finding('UNMATCHED_SECTION', 'error', file, open.dec.index + 1, open.dec.path, `@section ${open.dec.path} begin never ends`),
    )
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
