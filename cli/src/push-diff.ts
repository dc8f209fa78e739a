// A push dry run's changes printed like `git diff --stat` followed by the hunks.
import type { PushChange } from '@ies/api'
import type { Output } from './output.ts'

export function countLines(diff: string): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue
    if (line.startsWith('+')) added++
    else if (line.startsWith('-')) removed++
  }
  return { added, removed }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

export function printPushDiff(out: Output, changes: PushChange[]): void {
  const c = out.colors
  const counts = changes.map((change) => countLines(change.diff ?? ''))
  const width = Math.max(0, ...changes.map((change) => change.path.length))
  const most = Math.max(1, ...counts.map((n) => n.added + n.removed))
  const barWidth = 50
  changes.forEach((change, i) => {
    const { added, removed } = counts[i]!
    const scale = most > barWidth ? barWidth / most : 1
    const plus = Math.round(added * scale)
    const minus = Math.round(removed * scale)
    const note = change.change === 'added' || change.change === 'deleted' ? c.dim(` (${change.change})`) : ''
    out.line(
      ` ${change.path.padEnd(width)} | ${String(added + removed).padStart(4)} ${c.green('+'.repeat(plus))}${c.red('-'.repeat(minus))}${note}`,
    )
  })
  const added = counts.reduce((n, x) => n + x.added, 0)
  const removed = counts.reduce((n, x) => n + x.removed, 0)
  out.line(` ${plural(changes.length, 'file')} changed, ${plural(added, 'insertion')}(+), ${plural(removed, 'deletion')}(-)`)
  for (const change of changes) {
    out.line()
    out.line(c.bold(`diff ${change.path} (${change.change})`))
    for (const line of (change.diff ?? '').replace(/\n$/, '').split('\n')) {
      if (line.startsWith('@@')) out.line(c.cyan(line))
      else if (line.startsWith('+') && !line.startsWith('+++')) out.line(c.green(line))
      else if (line.startsWith('-') && !line.startsWith('---')) out.line(c.red(line))
      else out.line(line)
    }
    if (change.truncated) out.line(c.dim('… (diff truncated by the server)'))
  }
}
