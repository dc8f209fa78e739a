// The preview of a push: the file tree of the change (added, modified, deleted, in conflict) and the
// unified diff of the file chosen in it.
import { useState } from 'react'
import { changeTree, describeCounts, diffLines, type ChangeNode, type FileChange } from '../../lib/change-tree.ts'
import { Badge } from './ui.tsx'

const KIND_LABEL: Record<FileChange['change'], string> = { added: 'added', modified: 'modified', deleted: 'deleted', conflict: 'conflict' }

function TreeNode({ node, selected, onSelect }: { node: ChangeNode; selected: string | null; onSelect: (f: FileChange) => void }) {
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
  return (
    <li>
      <span className="tree-folder mono">{node.name}/</span>
      <ul>
        {node.children.map((c) => (
          <TreeNode key={c.path} node={c} selected={selected} onSelect={onSelect} />
        ))}
      </ul>
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

export function ChangePreview({ changes }: { changes: FileChange[] }) {
  const [selected, setSelected] = useState<FileChange | null>(changes.find((c) => c.change === 'conflict') ?? changes[0] ?? null)
  const tree = changeTree(changes)
  return (
    <div className="stack" data-testid="change-preview">
      <p data-testid="change-summary">{describeCounts(changes)}</p>
      {changes.length > 0 && (
        <div className="change-preview">
          <nav aria-label="Changed files">
            <ul className="tree">
              {tree.children.map((c) => (
                <TreeNode key={c.path} node={c} selected={selected?.path ?? null} onSelect={setSelected} />
              ))}
            </ul>
          </nav>
          {selected && <DiffView file={selected} />}
        </div>
      )}
    </div>
  )
}
