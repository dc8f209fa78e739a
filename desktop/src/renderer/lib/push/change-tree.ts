// The files a push would change, as a tree for the preview (folders first, then files, each by
// name), with the count of each kind of change.
import type { PushChange } from '@ies/api'

export type ChangeKind = PushChange['change']
export const CHANGE_KINDS: readonly ChangeKind[] = ['added', 'modified', 'deleted', 'conflict']

/** A file of a push preview (the API's `PushChange`; the tree and the counts need only its path and change). */
export type FileChange = Pick<PushChange, 'path' | 'change'> & Partial<Pick<PushChange, 'diff' | 'truncated'>>

export interface ChangeNode {
  name: string
  /** The full path of this folder or file. */
  path: string
  /** Set on files. */
  file?: FileChange
  children: ChangeNode[]
}

export function changeTree(changes: readonly FileChange[]): ChangeNode {
  const root: ChangeNode = { name: '', path: '', children: [] }
  for (const c of changes) {
    const parts = c.path.split('/').filter(Boolean)
    let node = root
    parts.forEach((name, i) => {
      const path = parts.slice(0, i + 1).join('/')
      const last = i === parts.length - 1
      let child = node.children.find((n) => n.name === name && !!n.file === last)
      if (!child) {
        child = { name, path, children: [] }
        node.children.push(child)
      }
      if (last) child.file = c
      node = child
    })
  }
  const sort = (n: ChangeNode) => {
    n.children.sort((a, b) => Number(!!a.file) - Number(!!b.file) || a.name.localeCompare(b.name))
    n.children.forEach(sort)
  }
  sort(root)
  return root
}

export function changeCounts(changes: readonly FileChange[]): Record<ChangeKind, number> {
  const out = { added: 0, modified: 0, deleted: 0, conflict: 0 }
  for (const c of changes) if (c.change in out) out[c.change]++
  return out
}

/** "3 files change: 1 added, 2 modified" / "Nothing changes". */
export function describeCounts(changes: readonly FileChange[]): string {
  if (changes.length === 0) return 'Nothing changes: the branch already holds what IES would push.'
  const counts = changeCounts(changes)
  const parts = CHANGE_KINDS.filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k === 'conflict' ? `in conflict` : k}`)
  return `${changes.length} file${changes.length === 1 ? '' : 's'} change: ${parts.join(', ')}.`
}

export type DiffLineKind = 'add' | 'del' | 'hunk' | 'meta' | 'context'

/** The lines of a unified diff, each with its kind, for colouring. */
export function diffLines(diff: string): { kind: DiffLineKind; text: string }[] {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .map((text) => {
      if (/^(---|\+\+\+) /.test(text) || /^(diff |index |new file|deleted file|old mode|new mode|\\ No newline)/.test(text))
        return { kind: 'meta', text }
      if (text.startsWith('@@')) return { kind: 'hunk', text }
      if (text.startsWith('+')) return { kind: 'add', text }
      if (text.startsWith('-')) return { kind: 'del', text }
      return { kind: 'context', text }
    })
}
