// The preview of a push: the file tree of the change (added, modified, deleted, in conflict) and the
// unified diff of the file chosen in it.
import { useState, type ReactNode } from 'react'
import { changeTree, describeCounts, diffLines, type ChangeNode, type FileChange } from '../lib/push/change-tree.ts'
import { Badge } from './ui.tsx'

const KIND_LABEL: Record<FileChange['change'], string> = { added: 'added', modified: 'modified', deleted: 'deleted', conflict: 'conflict' }

/** Files below a folder. */
const countFiles = (n: ChangeNode): number => (n.file ? 1 : n.children.reduce((sum, c) => sum + countFiles(c), 0))

function TreeNode({
  node,
  selected,
  onSelect,
  open,
}: {
  node: ChangeNode
  selected: string | null
  onSelect: (f: FileChange) => void
  open: boolean
}) {
  if (node.file) {
    const f = node.file
    return (
      <li>
        <button
          type="button"
          className={`tree-file ${f.change}`}
          aria-current={selected === f.path ? 'true' : undefined}
          onClick={() => onSelect(f)}
          data-path={f.path}
        >
          <span className="mono">{node.name}</span> <Badge kind={`change-${f.change}`}>{KIND_LABEL[f.change]}</Badge>
        </button>
      </li>
    )
  }
  // A long change starts folded, except the folder of the chosen file.
  const holdsSelected = !!selected && selected.startsWith(`${node.path}/`)
  return (
    <li>
      <details open={open || holdsSelected}>
        <summary className="tree-folder mono">
          {node.name}/ <span className="muted small">({countFiles(node)})</span>
        </summary>
        <ul>
          {node.children.map((c) => (
            <TreeNode key={c.path} node={c} selected={selected} onSelect={onSelect} open={open} />
          ))}
        </ul>
      </details>
    </li>
  )
}

export function DiffView({ file }: { file: FileChange }) {
  return (
    <div className="diff" data-testid="file-diff" data-path={file.path}>
      <div className="row">
        <strong className="mono">{file.path}</strong> <Badge kind={`change-${file.change}`}>{KIND_LABEL[file.change]}</Badge>
      </div>
      {file.diff ? (
        <pre className="code diff-body" aria-label={`Changes to ${file.path}`}>
          {diffLines(file.diff).map((l, i) => (
            <span key={i} className={`diff-${l.kind}`}>
              {l.text}
              {'\n'}
            </span>
          ))}
        </pre>
      ) : (
        <p className="muted">No text difference to show (binary or empty file).</p>
      )}
      {file.truncated && <p className="muted small">The diff was cut: the file changes more than the preview shows.</p>}
    </div>
  )
}

/** Up to this many files the tree starts unfolded. */
const UNFOLDED_UP_TO = 25

export function ChangePreview({ changes, actions }: { changes: FileChange[]; actions?: ReactNode }) {
  const [selected, setSelected] = useState<FileChange | null>(changes.find((c) => c.change === 'conflict') ?? changes[0] ?? null)
  const tree = changeTree(changes)
  return (
    <div className="stack" data-testid="change-preview">
      <p data-testid="change-summary">{describeCounts(changes)}</p>
      {actions}
      {changes.length > 0 && (
        <div className="change-preview">
          <nav aria-label="Changed files">
            <ul className="tree">
              {tree.children.map((c) => (
                <TreeNode
                  key={c.path}
                  node={c}
                  selected={selected?.path ?? null}
                  onSelect={setSelected}
                  open={changes.length <= UNFOLDED_UP_TO}
                />
              ))}
            </ul>
          </nav>
          {selected && <DiffView file={selected} />}
        </div>
      )}
    </div>
  )
}
